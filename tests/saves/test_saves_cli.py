"""``pibench saves list|show|delete|export|import`` (saves/cli.py): output, exit codes and
the messages for bad files; plus one run of the real ``pibench`` command."""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import subprocess
import sys
from argparse import Namespace

import pytest

from saves import SaveStore
from saves.cli import add_saves_parser, cmd_list, cmd_show
from scenarios import load_scenario
from tests.headless.conftest import pibench_command
from tests.saves.saves_fakeworld import FakeWorld
from world.engine import World


def run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="pibench")
    add_saves_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    return args.func(args, out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def filled(store, fake):
    store.save("Ada ✓", fake(seed=3, month=12), scenario="tutorial")
    store.autosave("run", fake(month=5))
    return store


def test_list_table_and_json(filled):
    """``saves list`` shows each save with its scenario and month and the count; ``--json --career``
    lists only that career's saves."""
    code, out, err = run(["saves", "--saves", str(filled.path), "list"])
    assert code == 0 and err == ""
    assert "Ada ✓" in out and "run@m05" in out and "tutorial" in out and "12/60" in out and "2 saves" in out
    code, out, _ = run(["saves", "list", "--saves", str(filled.path), "--json", "--career", "run"])
    assert [d["name"] for d in json.loads(out)] == ["run@m05"]


def test_list_of_an_empty_store(tmp_path):
    """``saves list`` on a store that does not exist succeeds and says there are no saves."""
    code, out, _ = run(["saves", "--saves", str(tmp_path / "none"), "list"])
    assert code == 0 and "No saves" in out


def test_list_of_a_store_that_is_a_file_is_an_error(tmp_path):
    """``saves --saves F list`` with F a regular file: before, "No saves in F." and exit 0, as
    if the store were empty; now exit 1 naming F as a file where a folder is needed, and
    the file is left as it was."""
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    code, out, err = run(["saves", "--saves", str(blocker), "list"])
    assert code == 1 and "No saves" not in out
    assert str(blocker) in err and "not a folder" in err and "--saves DIR" in err
    assert blocker.read_text() == "mine"


def test_show_verifies_the_save(filled):
    """``saves show`` verifies the save and prints its integrity, seed and action count; a truncated
    save file shows FAILED and exits 1 naming the truncation."""
    code, out, _ = run(["saves", "--saves", str(filled.path), "show", "Ada ✓"])
    assert code == 0
    assert "integrity         ok" in out and "seed              3" in out and "actions recorded  1" in out
    filled.file_of("Ada ✓").write_bytes(filled.file_of("Ada ✓").read_bytes()[:100])
    code, out, err = run(["saves", "--saves", str(filled.path), "show", "Ada ✓"])
    assert code == 1 and "FAILED" in out and "truncated" in err


def test_delete(filled):
    """``saves delete --yes`` removes only the named save; deleting it again exits 2 (a usage
    error) with "no save called"."""
    code, out, _ = run(["saves", "--saves", str(filled.path), "delete", "Ada ✓", "--yes"])
    assert code == 0 and "Deleted" in out and filled.names() == ["run@m05"]
    code, _, err = run(["saves", "--saves", str(filled.path), "delete", "Ada ✓", "--yes"])
    assert code == 2 and err.startswith("error: no save called")


def _delete(store_path, *extra: str, answer: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``pibench saves delete run@m05 EXTRA``: stdin a terminal (a pty) holding
    ``answer`` when given, else not a terminal (``/dev/null``)."""
    cmd = pibench_command() + ["saves", "--saves", str(store_path), "delete", "run@m05", *extra]
    env = dict(os.environ, PIBENCH_HOME=str(store_path.parent / "unused"))
    if answer is None:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60)
    master, slave = pty.openpty()
    try:
        os.write(master, answer.encode())  # read by the prompt once the line is complete
        return subprocess.run(cmd, stdin=slave, capture_output=True, text=True, env=env, timeout=60)
    finally:
        os.close(slave)
        os.close(master)


def test_delete_asks_on_a_terminal_and_refuses_without_one(filled):
    """``saves delete`` asks (y/N) on a terminal and deletes only on yes; with no terminal
    (a script's stdin) it refuses without ``--yes``, naming it, and deletes nothing; ``--yes``
    deletes without asking (before: it deleted at once, every time)."""
    refused = _delete(filled.path)
    assert refused.returncode == 1 and "--yes" in refused.stderr and "not a terminal" in refused.stderr
    assert "'run@m05'" in refused.stderr and "run@m05" in filled.names()
    for no in ("n\n", "\n", "yess\n"):
        kept = _delete(filled.path, answer=no)
        assert kept.returncode == 1 and "[y/N]" in kept.stdout and "Not deleted." in kept.stdout
        assert "run@m05" in filled.names()
    deleted = _delete(filled.path, answer="y\n")
    assert deleted.returncode == 0 and "[y/N]" in deleted.stdout and "Deleted save 'run@m05'" in deleted.stdout
    assert filled.names() == ["Ada ✓"]
    filled.autosave("run", FakeWorld(month=5))
    forced = _delete(filled.path, "--yes")
    assert forced.returncode == 0 and "[y/N]" not in forced.stdout and filled.names() == ["Ada ✓"]
    helped = subprocess.run(
        pibench_command() + ["saves", "delete", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--yes" in helped.stdout and "asks first" in helped.stdout


def test_export_import_and_refusals(filled, tmp_path):
    """Export refuses to overwrite a file without ``--force``; import refuses a taken name unless
    ``--as``, refuses a tampered file by its checksum, and reports an unreadable path."""
    f = tmp_path / "ada.json"
    assert run(["saves", "--saves", str(filled.path), "export", "Ada ✓", str(f)])[0] == 0
    code, _, err = run(["saves", "--saves", str(filled.path), "export", "Ada ✓", str(f)])
    assert code == 1 and "exists already" in err
    assert run(["saves", "--saves", str(filled.path), "export", "Ada ✓", str(f), "--force"])[0] == 0
    other = tmp_path / "other"
    code, out, _ = run(["saves", "--saves", str(other), "import", str(f)])
    assert code == 0 and "Imported save 'Ada ✓'" in out
    code, _, err = run(["saves", "--saves", str(other), "import", str(f)])
    assert code == 1 and "exists already" in err
    assert run(["saves", "--saves", str(other), "import", str(f), "--as", "copy"])[0] == 0
    env = json.loads(f.read_bytes())
    env["save"]["state"]["seed"] = 4
    f.write_text(json.dumps(env) + "\n")
    code, _, err = run(["saves", "--saves", str(other), "import", str(f), "--as", "evil"])
    assert code == 1 and "checksum" in err and "tampered" in err
    code, _, err = run(["saves", "--saves", str(other), "import", str(tmp_path / "missing.json")])
    assert code == 2 and "no such file" in err  # a usage error


def test_warnings_reach_stderr(filled, fake):
    """A recovered index (backup used) is announced on stderr; the listing still works."""
    filled.save("two", fake())
    filled.index_path.write_bytes(b"{broken")
    code, out, err = run(["saves", "--saves", str(filled.path), "list"])
    assert code == 0 and "backup" in err
    assert err.count("backup copy") == 1  # once, as plain text (no Python warning line)
    assert "Warning" not in err and ".py:" not in err


def test_pibench_home_is_used_without_saves_option(tmp_path, monkeypatch, fake):
    """Without ``--saves``, ``saves list`` reads the store under ``$PIBENCH_HOME``."""
    monkeypatch.setenv("PIBENCH_HOME", str(tmp_path))
    SaveStore().save("home", fake())
    out = io.StringIO()
    assert cmd_list(argparse.Namespace(), out, io.StringIO()) == 0
    assert "home" in out.getvalue()


def test_the_real_pibench_command_reaches_these_functions(filled):
    """`pibench saves list` through the console script (wired by pibench_tui/cli/command.py)."""
    env = dict(os.environ, PIBENCH_HOME=str(filled.path.parent / "unused"))
    proc = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "saves", "--saves", str(filled.path), "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Ada ✓" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "saves", "--saves", str(filled.path), "show", "zzz"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2 and "no save called 'zzz'" in proc.stderr  # a usage error


# -- saves show and an overridden seed ------------------------------------------------------------------------
def _show(store, name, as_json=False) -> str:
    """``pibench saves show NAME [--json]``'s output (exit 0 asserted)."""
    out = io.StringIO()
    assert cmd_show(Namespace(saves=str(store.path), name=name, json=as_json), out, io.StringIO()) == 0
    return out.getvalue()


def test_show_marks_an_overridden_seed_and_drops_the_description_of_the_other_seed(tmp_path):
    """A save whose seed differs from its scenario's says so (text and JSON) and never prints
    the scenario's description of the other seed."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    scen = load_scenario("standard", seed=101)
    world = World(scen.config, scen.seed)
    store.save("car101", world, scenario=scen)
    text = _show(store, "car101")
    assert "1001, a practice seed" not in text
    assert "101 (overridden; scenario standard itself uses seed 1001)" in text
    assert "The default world: 60 months, $600,000 startup money." in text
    data = json.loads(_show(store, "car101", as_json=True))
    assert (data["seed"], data["scenario seed"], data["seed overridden"]) == (101, 1001, True)
    assert "1001" not in data["description"]


def test_show_keeps_the_description_when_the_seed_is_the_scenarios_own(tmp_path):
    """A save on the scenario's own seed keeps the scenario's description, not marked overridden."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    scen = load_scenario("standard")
    store.save("car1001", World(scen.config, scen.seed), scenario=scen)
    text = _show(store, "car1001")
    assert "Seed 1001, a practice seed" in text and "overridden" not in text
    data = json.loads(_show(store, "car1001", as_json=True))
    assert (data["seed"], data["seed overridden"]) == (1001, False)


def test_delete_and_import_leave_a_career_a_session_writes_alone(filled, tmp_path):
    """While a session holds the career ``run`` (its lock), ``saves delete run@m05`` and
    ``saves import --as run`` of another career's file into it exit 1 naming the career and the holder, and
    change nothing; ``saves list/show/export`` of it work; once it is free both go through."""
    f = tmp_path / "ada.json"
    assert run(["saves", "--saves", str(filled.path), "export", "Ada ✓", str(f)])[0] == 0
    session = filled.hold_career("run", "pibench headless")
    before = filled.list()
    code, _, err = run(["saves", "--saves", str(filled.path), "delete", "run@m05", "-y"])
    assert code == 1 and "the career 'run' is in use" in err and "pibench headless of 'run', pid" in err
    assert "Wait for that session to end, then delete" in err
    code, _, err = run(["saves", "--saves", str(filled.path), "import", str(f), "--as", "run", "--force"])
    assert code == 1 and "the career 'run' is in use" in err and "--as OTHER" in err
    assert filled.list() == before
    for argv in (["list"], ["show", "run"], ["export", "run", str(tmp_path / "run.json")]):
        assert run(["saves", "--saves", str(filled.path), *argv])[0] == 0
    session.release()
    assert run(["saves", "--saves", str(filled.path), "delete", "run@m05", "-y"])[0] == 0
    assert run(["saves", "--saves", str(filled.path), "import", str(f), "--as", "run"])[0] == 0
