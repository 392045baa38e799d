"""A sweep's --json/--csv files: refused up front when they could not be written at the end,
written even when the reader of the tables goes away, and a killed sweep leaves no worker
process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from policies_helpers import ROOT, cli

import pibench_tui.sweep as sweep_pkg
from pibench_tui.sweep import JournalError, LocalExecutor, SweepJournal, journal_path


class _Counting(LocalExecutor):
    """A local executor that records the careers it is asked to play."""

    def __init__(self) -> None:
        super().__init__(1)
        self.asked: list[int] = []

    def run(self, groups, emit, record=False):
        self.asked += [s for g in groups for s in g.seeds]
        super().run(groups, emit, record)


@pytest.mark.parametrize("command", [["run", "baseline"], ["compare", "baseline", "hire-max"]])
def test_json_and_csv_naming_one_file_are_refused_before_any_career(command, tmp_path, monkeypatch, capsys):
    """``--json F --csv F`` (the CSV would silently replace the JSON) is a usage error naming
    both options, given before a career is played; nothing is written."""
    ex = _Counting()
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: ex)
    out = tmp_path / "same.out"
    code = cli([*command, "--seeds", "1-2", "--json", str(out), "--csv", str(tmp_path / "." / "same.out")])
    assert code == 2
    assert "--json and --csv name the same file" in capsys.readouterr().err
    assert ex.asked == [] and not out.exists() and not journal_path(out).exists()


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_an_output_that_is_a_folder_is_refused_before_any_career(option, tmp_path, monkeypatch, capsys):
    """A folder given as ``--json``/``--csv`` is refused at once (it used to fail only after
    the whole sweep was played), naming the option and the folder."""
    ex = _Counting()
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: ex)
    folder = tmp_path / "results"
    folder.mkdir()
    assert cli(["run", "baseline", "--seeds", "1-2", option, str(folder)]) == 2
    assert f"{option} {folder} is a folder" in capsys.readouterr().err
    assert ex.asked == [] and list(folder.iterdir()) == []


def test_sweep_outputs_get_the_permissions_open_would_give_them(tmp_path, capsys):
    """``--json``/``--csv`` files are the user's results: created ``0o666`` less the umask,
    as any program's output files are (they were 0600, the atomic writer's temporary file),
    while a save stays private."""
    from saves.storage import atomic_write

    umask = os.umask(0o022)
    os.umask(umask)
    out_json, out_csv = tmp_path / "o.json", tmp_path / "o.csv"
    assert cli(["run", "baseline", "--seeds", "1", "--json", str(out_json), "--csv", str(out_csv)]) == 0
    capsys.readouterr()
    for out in (out_json, out_csv):
        assert out.stat().st_mode & 0o777 == 0o666 & ~umask, oct(out.stat().st_mode)
    private = tmp_path / "save.bin"
    atomic_write(private, b"x")
    assert private.stat().st_mode & 0o777 == 0o600


def test_an_output_in_a_missing_folder_is_refused_before_any_career(tmp_path, monkeypatch, capsys):
    """``--json`` in a writable folder with ``--csv`` in a missing one: refused at once naming
    the missing folder (the journal lives beside the JSON only, so the CSV's folder used to
    fail only after the whole sweep); nothing is written."""
    ex = _Counting()
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: ex)
    out = tmp_path / "o.json"
    missing = tmp_path / "nowhere"
    assert cli(["run", "baseline", "--seeds", "1-2", "--json", str(out), "--csv", str(missing / "o.csv")]) == 2
    assert f"there is no folder {missing}" in capsys.readouterr().err
    assert ex.asked == [] and list(tmp_path.iterdir()) == []


def test_files_are_written_when_the_reader_of_the_tables_goes_away(tmp_path):
    """``pibench run ... --json F --csv G | head``: the reader leaves before the tables are
    printed, yet both files are written (they come before the tables), equal to those of a
    run whose output is read, and no journal is left to resume."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "pibench_tui", "run", "baseline", "--seeds", "1-3"]
    proc = subprocess.Popen(
        [*cmd, "--json", "cut.json", "--csv", "cut.csv"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # nobody reads the tables
    assert proc.wait(timeout=300) != 0  # the broken pipe is still an error
    ref = subprocess.run(
        [*cmd, "--json", "ref.json", "--csv", "ref.csv"], cwd=tmp_path, env=env, capture_output=True, timeout=300
    )
    assert ref.returncode == 0, ref.stderr
    assert (tmp_path / "cut.json").read_bytes() == (tmp_path / "ref.json").read_bytes()
    assert (tmp_path / "cut.csv").read_bytes() == (tmp_path / "ref.csv").read_bytes()
    assert not journal_path(tmp_path / "cut.json").exists()


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not hasattr(os, "fork"), reason="worker pools fork here")
def test_sweep_workers_exit_when_the_sweep_process_is_killed(tmp_path):
    """A sweep process killed outright (SIGKILL: its pool is never shut down) leaves no worker
    behind: each worker sees its parent gone and exits (it used to wait for work forever)."""
    script = tmp_path / "sweep.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, sys, time
            from world.runner import SeedGroup, run_groups

            def career(policy, seed, config, baseline_config):
                open(os.path.join(sys.argv[1], "worker-%d" % os.getpid()), "w").close()
                time.sleep(600)

            run_groups([SeedGroup("baseline", (1, 2, 3, 4), None, None)], 2, career=career, chunk=1)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], env=env)
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("worker-*"))) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
        assert len(workers) == 2 and proc.poll() is None
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # do not leave them running if the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock is POSIX")
def test_a_journal_another_running_sweep_writes_is_refused(tmp_path):
    """Two sweeps writing the same files at once used to interleave their journal lines and
    both crash on reading them back (a JSON traceback, no files): the second is refused with
    a message saying the file is in use, the first's journal is untouched, and once the first
    has closed it the sweep resumes from it."""
    settings = {"command": "run", "groups": []}
    path = tmp_path / "o.json.partial.jsonl"
    first = SweepJournal(path, settings)
    first.append("baseline", {"seed": 5, "impact": 1.0})
    before = path.read_bytes()
    with pytest.raises(JournalError, match="in use by another pibench sweep that is still running"):
        SweepJournal(path, settings)
    assert path.read_bytes() == before
    first.close()
    again = SweepJournal(path, settings)
    assert again.resumed == 1
    again.close()


class _Stopping(_Counting):
    """A counting executor that stops the sweep (as Ctrl-C would) after ``stop_after`` careers."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__()
        self.stop_after = stop_after

    def run(self, groups, emit, record=False):
        emitted = 0

        def stopping_emit(key, row, run):
            nonlocal emitted
            if emitted == self.stop_after:
                raise KeyboardInterrupt
            emit(key, row, run)
            emitted += 1

        super().run(groups, stopping_emit, record)


def test_a_csv_sweep_resumes_when_json_is_added(tmp_path, monkeypatch, capsys):
    """A ``--csv F`` sweep interrupted, then run again with ``--json G`` added, resumes from
    ``F.partial.jsonl`` (it used to start over and leave that journal behind): only the
    missing careers are played, both files are those of an uninterrupted run, and no journal
    is left beside either."""
    cmd = ["run", "baseline", "--scenario", "short-12", "--seeds", "1-5"]
    ref_json, ref_csv = tmp_path / "ref.json", tmp_path / "ref.csv"
    assert cli([*cmd, "--json", str(ref_json), "--csv", str(ref_csv)]) == 0
    out_json, out_csv = tmp_path / "out.json", tmp_path / "out.csv"
    first = _Stopping(stop_after=2)
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: first)
    assert cli([*cmd, "--csv", str(out_csv)]) == 130
    assert journal_path(out_csv).exists()
    capsys.readouterr()

    second = _Counting()
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: second)
    assert cli([*cmd, "--json", str(out_json), "--csv", str(out_csv)]) == 0
    assert f"resuming: 2 finished career(s) read back from {journal_path(out_csv)}" in capsys.readouterr().err
    assert second.asked == [3, 4, 5]
    assert out_json.read_bytes() == ref_json.read_bytes()
    assert out_csv.read_bytes() == ref_csv.read_bytes()
    assert not journal_path(out_csv).exists() and not journal_path(out_json).exists()


def test_two_interrupted_sweeps_beside_json_and_csv_are_refused(tmp_path, monkeypatch, capsys):
    """When ``--json G`` and ``--csv F`` both have a journal beside them (two interrupted
    sweeps), the command cannot guess which to resume: it refuses before any career, naming
    both files and what to delete; both journals stay as they were."""
    cmd = ["run", "baseline", "--scenario", "short-12"]
    out_json, out_csv = tmp_path / "out.json", tmp_path / "out.csv"
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: _Stopping(stop_after=1))
    assert cli([*cmd, "--seeds", "1-3", "--json", str(out_json)]) == 130
    assert cli([*cmd, "--seeds", "4-6", "--csv", str(out_csv)]) == 130
    capsys.readouterr()
    before = {p: p.read_bytes() for p in (journal_path(out_json), journal_path(out_csv))}
    ex = _Counting()
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: ex)
    assert cli([*cmd, "--seeds", "1-3", "--json", str(out_json), "--csv", str(out_csv)]) == 1
    err = capsys.readouterr().err
    assert str(journal_path(out_json)) in err and str(journal_path(out_csv)) in err
    assert "both hold an interrupted sweep" in err and "delete the one you do not want" in err
    assert ex.asked == [] and {p: p.read_bytes() for p in before} == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock is POSIX")
@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_the_journal_stays_locked_until_the_files_are_written(option, tmp_path, monkeypatch, capsys):
    """The journal's lock is held from the first career until the files are written (it was
    released when the careers finished): a second sweep on the same file while the first
    writes its files is refused as in use; once the files are written the journal is gone
    and a new sweep may start there."""
    import pibench_tui.cli.run_cmds as run_cmds

    out = tmp_path / "out.data"
    seen: list[str] = []
    writer = "_write_json" if option == "--json" else "_write_csv"
    real = getattr(run_cmds, writer)

    def writing(path, *a, **kw):
        try:
            SweepJournal(journal_path(out), {"command": "run", "groups": []}).close()
            seen.append("opened")
        except JournalError as exc:
            seen.append(str(exc))
        return real(path, *a, **kw)

    monkeypatch.setattr(run_cmds, writer, writing)
    assert cli(["run", "baseline", "--scenario", "short-12", "--seeds", "1-2", option, str(out)]) == 0
    capsys.readouterr()
    assert len(seen) == 1 and "in use by another pibench sweep" in seen[0], seen
    assert out.exists() and not journal_path(out).exists()
    SweepJournal(journal_path(out), {"command": "run", "groups": []}).finish()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock is POSIX")
def test_two_sweeps_starting_at_once_on_one_file_do_not_share_the_journal(tmp_path, monkeypatch):
    """Two sweeps that both looked for the journal before either had made it: the later one
    used to replace the earlier's journal with its own and lock that, so both ran writing
    one file (and crashed reading their rows back). Now the later finds the journal made
    meanwhile and is refused as in use; the first's journal keeps its header and lines."""
    path = tmp_path / "o.json.partial.jsonl"
    first = SweepJournal(path, {"command": "run", "groups": [], "seeds": "1-12"})
    first.append("baseline", {"seed": 5, "impact": 1.0})
    before = path.read_bytes()
    real_exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda self: False if self == path else real_exists(self))
    with pytest.raises(JournalError, match="in use by another pibench sweep that is still running"):
        SweepJournal(path, {"command": "run", "groups": [], "seeds": "101-112"})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [row for _, row, _ in first.read_back()] == [{"seed": 5, "impact": 1.0}]
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    first.close()
