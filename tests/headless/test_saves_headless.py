"""Save and resume through headless mode: the resumed career is the uninterrupted one; a taken
name, a bad name and an unusable store are refused at start; a damaged newest save falls back;
a signal writes the final save."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from saves import SaveStore
from scenarios import load_scenario, modified_name
from tests.headless.conftest import pibench_command

FIRST = "r = recruit.hire_ra()\ntime.next_month()['month']\nwrite_memory('note from part one')\ntime.next_month()['month']\n"
SECOND = "read_memory()\nrecruit.hire_manager()['ok']\ntime.next_month()['month']\ntime.next_month()['month']\n"


def test_save_then_load_equals_one_uninterrupted_career(pibench, tmp_path):
    """--save NAME at the end of one session and --load NAME in the next give the same
    world (digest) as playing both parts in one session; the notes persist. The resumed
    career keeps autosaving under its own name without --save (NAME@m04, NAME@m05, and NAME
    at the end), so a third session would resume at month 5, not where the first stopped."""
    store = str(tmp_path / "store")
    part1 = pibench(["headless", "--seed", "5", "--save", "c1", "--saves", store], FIRST)
    assert part1.returncode == 0, part1.stderr
    assert "saved as 'c1' (month 3)" in part1.stdout
    part2 = pibench(["headless", "--load", "c1", "--saves", store], SECOND)
    assert part2.returncode == 0, part2.stderr
    assert part2.stdout.startswith("'note from part one'\nTrue\n4\n5\n")
    assert {"c1@m04", "c1@m05"} <= {i.name for i in SaveStore(store).list()}
    world, record = SaveStore(store).load_world("c1")
    assert world.month == 5 and record.info.career == "c1"
    whole = pibench(["headless", "--seed", "5"], FIRST + SECOND)
    assert part2.report()["state digest"] == whole.report()["state digest"]
    assert part2.report()["scenario"] == "standard (seed 5)"


def test_jsonl_autosaves_each_month(pibench, tmp_path):
    """In JSON-lines mode --save autosaves when the month changes and saves at EOF."""
    from saves import SaveStore

    store = tmp_path / "store"
    requests = "".join(json.dumps({"code": c}) + "\n" for c in ("time.next_month()", "1 + 1", "time.next_month()"))
    run = pibench(["headless", "--jsonl", "--seed", "8", "--save", "auto", "--saves", str(store)], requests)
    assert run.returncode == 0, run.stderr
    assert len(run.replies()) == 3
    names = {info.name for info in SaveStore(store).list()}
    assert {"auto", "auto@m02", "auto@m03"} <= names
    world, _ = SaveStore(store).load_world("auto")
    assert world.month == 3


def test_bad_save_name_exits_2(pibench, tmp_path):
    """An invalid --save name is a usage error (exit 2, README "Exit statuses": a bad value
    on the command line) before anything runs."""
    run = pibench(["headless", "--save", " padded ", "--saves", str(tmp_path / "s")], "print('ran')\n")
    assert run.returncode == 2
    assert "ran" not in run.stdout
    assert "--save" in run.stderr


def test_corrupt_save_exits_1(pibench, tmp_path):
    """A damaged save file is refused with a message (exit 1), never half-loaded. (The save
    is written in-process: what is tested here is pibench loading it; saving through pibench
    is tested by test_save_then_load_equals_one_uninterrupted_career.)"""
    from scenarios import load_scenario
    from world.engine import World

    store_dir = tmp_path / "store"
    scen = load_scenario(None, seed=2)
    SaveStore(store_dir).save("good", World(scen.config, scen.seed), scenario=scen)
    assert SaveStore(store_dir).load_world("good")[0].month == 1  # whole before the damage
    path = SaveStore(store_dir).file_of("good")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    run = pibench(["headless", "--load", "good", "--saves", str(store_dir)], "")
    assert run.returncode == 1
    assert "good" in run.stderr


def test_looking_at_an_older_autosave_keeps_the_newer_save(pibench, tmp_path):
    """--load NAME@m02 (no --save) only to read changes nothing, so nothing is written: the
    career's newer save NAME (month 4) stays as it was (it used to be replaced by month 2 at
    the end of the session, as the TUI never does on a quit without changes). A session that
    does change it saves a branch, the new career c-from-m02, and c stays at month 4 (QA issue
    27: it used to overwrite c with month 2)."""
    store = str(tmp_path / "store")
    run = pibench(["headless", "--seed", "4", "--save", "c", "--saves", store], "time.next_month()\n" * 3)
    assert run.returncode == 0, run.stderr
    look = pibench(["headless", "--load", "c@m02", "--saves", store], "lab.dashboard()['month']\n")
    assert look.returncode == 0, look.stderr
    assert look.stdout.startswith("2\n") and "saved as" not in look.stdout
    assert SaveStore(store).load_world("c", exact=True)[0].month == 4
    play = pibench(["headless", "--load", "c@m02", "--saves", store], "write_memory('from month 2')\n")
    assert play.returncode == 0, play.stderr
    assert "saved as 'c-from-m02' (month 2)" in play.stdout
    assert "'c-from-m02'" in play.stderr and "'c' stays as it is" in play.stderr
    assert SaveStore(store).load_world("c")[0].month == 4


def test_looking_at_an_older_autosave_leaves_load_name_resuming_the_newest(pibench, tmp_path):
    """A look at NAME@m02 (no change) writes no save at all, autosaves included: `--load NAME`
    afterwards still resumes month 4, the career's newest. (The look used to autosave
    NAME@m02 again at its first block, which made it the newest save of the career, so the
    next `--load NAME` went back to month 2.)"""
    store = str(tmp_path / "store")
    run = pibench(["headless", "--seed", "4", "--save", "c", "--saves", store], "time.next_month()\n" * 3)
    assert run.returncode == 0, run.stderr
    before = {(i.name, i.updated) for i in SaveStore(store).list()}
    look = pibench(["headless", "--load", "c@m02", "--saves", store], "lab.dashboard()['month']\n")
    assert look.returncode == 0, look.stderr
    assert {(i.name, i.updated) for i in SaveStore(store).list()} == before
    again = pibench(["headless", "--load", "c", "--saves", store], "lab.dashboard()['month']\n")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("4\n")


def test_a_new_career_cannot_take_an_existing_careers_name(pibench, tmp_path):
    """--save NAME for a new career under the name of another saved career exits 1 before
    playing, naming that career and the ways out (--load, saves delete); nothing is written;
    --load NAME --save NAME continues the career. (The first career is saved in-process, as
    --save saves it: what is tested is what pibench does with the name.)"""
    from scenarios import load_scenario
    from world.api import Api
    from world.engine import World

    store = str(tmp_path / "store")
    scen = load_scenario("tutorial")
    world = World(scen.config, scen.seed)
    Api(world).time.next_month()
    SaveStore(store).save("qa1", world, scenario=scen)
    second = pibench(["headless", "--scenario", "short-12", "--save", "qa1", "--saves", store], "time.next_month()\n")
    assert second.returncode == 1 and second.stdout == ""
    assert "already names a saved career (scenario tutorial, seed 7, month 2/60" in second.stderr
    assert "--load qa1" in second.stderr and "pibench saves delete qa1" in second.stderr
    assert {i.seed for i in SaveStore(store).list()} == {7}  # nothing of the second career written
    again = pibench(["headless", "--load", "qa1", "--save", "qa1", "--saves", store], "time.next_month()\n")
    assert again.returncode == 0, again.stderr
    assert "saved as 'qa1' (month 3)" in again.stdout


def test_bad_names_and_unusable_stores_are_refused_at_start(pibench, tmp_path):
    """A save name with "/" (a usage error, exit 2) and a --saves path that cannot be written
    (exit 1) are refused at start, the rule named, before any output."""
    run = pibench(["headless", "--save", "a/b", "--saves", str(tmp_path / "s")], "time.next_month()\n")
    assert run.returncode == 2 and "contains '/'" in run.stderr and "reserved for autosaves" in run.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    run = pibench(["headless", "--save", "lab", "--saves", str(blocker)], "time.next_month()\n")
    assert run.returncode == 1 and "cannot be written" in run.stderr and run.stdout == ""


def test_a_damaged_newest_autosave_falls_back_with_one_warning(pibench, tmp_path):
    """With the newest saves of a career damaged, --load resumes from the newest loadable one
    and warns once, naming every save skipped."""
    store = tmp_path / "store"
    run = pibench(["headless", "--seed", "3", "--save", "c", "--saves", str(store)], "time.next_month()\n" * 3)
    assert run.returncode == 0, run.stderr
    s = SaveStore(store)
    for name in ("c", "c@m04"):
        s.file_of(name).write_bytes(b'{"format": "pibench-save"')
    run = pibench(["headless", "--load", "c", "--saves", str(store)], "lab.dashboard()['month']\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("3\n")
    assert run.stderr.count("skipped the damaged saves 'c' (month 4)") == 1 and "'c@m04'" in run.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_writes_the_final_save(tmp_path, sig):
    """SIGTERM, SIGHUP (the terminal was closed) or SIGINT during a --save session writes the
    final save (the last closed month) and exits with the signal's status (128 + its number
    for SIGTERM and SIGHUP, 1 for Ctrl-C), saying why."""
    store = tmp_path / "store"
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--seed", "4", "--save", "lab", "--saves", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdin.write(b"time.next_month()\ntime.next_month()\n1\n")  # a statement runs once the next one starts
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the month-3 autosave: the blocks ran
        if (store / "index.json").exists() and "lab@m03" in SaveStore(store, on_warning=None).names():
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == (1 if sig == signal.SIGINT else 128 + sig), err
    assert "saved as 'lab' (month 3)" in err
    assert ("interrupted" if sig == signal.SIGINT else f"terminated ({sig.name})") in err
    world, record = SaveStore(store).load_world("lab", exact=True)
    assert world.month == 3 and record.info.kind == "manual"


def _children_cpu_ticks(pid: int) -> int | None:
    """CPU time (user + system, in clock ticks) used so far by the processes ``pid`` started
    (its agent process), or None where /proc cannot tell (not Linux)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if not children.exists():
        return None
    total = 0
    for child in children.read_text().split():
        try:  # fields 14 and 15 (utime, stime), counted after the command's parentheses
            fields = Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()
        except FileNotFoundError:  # it has just ended
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def _wait_until_the_agent_computes(pid: int) -> None:
    """Return once the agent process of the pibench process ``pid`` has computed for 0.2 s
    of CPU time since the call (an endless loop is running: an idle agent process uses next
    to none), however long a loaded machine takes to get there; where /proc cannot tell,
    after half a second."""
    start = _children_cpu_ticks(pid)
    if start is None:
        time.sleep(0.5)
        return
    need = os.sysconf("SC_CLK_TCK") // 5
    deadline = time.monotonic() + 60  # a cap, not a timing
    while (_children_cpu_ticks(pid) or 0) - start < need:
        assert time.monotonic() < deadline, "the block never started running"
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_block_ends_a_json_lines_session_with_an_end_event(tmp_path, sig):
    """In JSON-lines mode SIGTERM (or SIGHUP) during a running block still ends stdout with
    the end event (marked ``interrupted: SIGTERM``/``SIGHUP``, with the report and the save),
    after the replies of the blocks that finished; the running block gets no reply."""
    store = tmp_path / "store"
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--jsonl", "--seed", "4", "--save", "lab", "--saves", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdin.write(b'{"code": "time.next_month()"}\n')
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    assert first["ok"] and first["month"] == 2
    proc.stdin.write(b'{"code": "while True:\\n    pass"}\n')
    proc.stdin.flush()
    _wait_until_the_agent_computes(proc.pid)  # the block is running (it would run until the block timeout)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert proc.returncode == 128 + sig, err
    assert len(lines) == 1, lines  # no reply for the interrupted block, then the end event
    end = lines[0]
    assert end["event"] == "end" and end["interrupted"] == sig.name
    assert end["report"]["month"] == 2 and "saved as 'lab' (month 2)" in end["saved"]


def test_a_scenario_file_named_after_a_bundled_one_is_reported_as_modified(pibench, tmp_path):
    """A .toml file that calls itself `standard` but has other rules (short-12's 12 months) is
    reported as "standard (modified HASH8)" (its config's hash) from its first session, as a
    save of it is on --load (it used to be reported, and saved, as plain "standard")."""
    shown = pibench(["scenarios", "show", "short-12", "--toml"], "")
    assert shown.returncode == 0, shown.stderr
    toml = tmp_path / "mine.toml"
    toml.write_text(
        "\n".join('name = "standard"' if ln.startswith("name") else ln for ln in shown.stdout.splitlines()) + "\n"
    )
    store = str(tmp_path / "store")
    run = pibench(["headless", "--scenario", str(toml), "--save", "m", "--saves", store], "time.next_month()\n")
    assert run.returncode == 0, run.stderr
    mark = modified_name("standard", load_scenario(str(toml)).config.content_hash())
    assert run.report()["scenario"] == f"{mark} (seed 101)"
    assert {i.scenario for i in SaveStore(store).list()} == {mark}
