"""Sweeps scale out and survive interruption (issue 9 §4): a Dask cluster gives the rows of
``--jobs 1``; an interrupted ``--json``/``--csv`` sweep resumes without replaying finished
careers and ends in the files of an uninterrupted run; ``--save-runs`` writes run
directories that replay to the same world."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from policies_helpers import ROOT

import pibench_tui.sweep as sweep_pkg
from pibench_tui.cli import main
from pibench_tui.sweep import DaskExecutor, Group, LocalExecutor, SweepJournal, journal_path, run_sweep
from world.api import replay
from world.config import WorldConfig
from world.runner import run_career


def _cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse usage errors
        return int(exc.code or 0)


@pytest.fixture(scope="module")
def dask_cluster():
    """A small in-process Dask cluster (threads, no dashboard) shared by the Dask tests."""
    import distributed  # the `test` extra installs dask[distributed]

    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as cluster:
        yield cluster


def test_dask_cluster_sweep_equals_jobs_1(tmp_path, dask_cluster):
    """`pibench compare` on a LocalCluster writes the same JSON and CSV as with --jobs 1."""
    local = [str(tmp_path / "local.json"), str(tmp_path / "local.csv")]
    dask = [str(tmp_path / "dask.json"), str(tmp_path / "dask.csv")]
    base = ["compare", "baseline", "oracle", "ambitious", "--seeds", "3-4"]
    assert _cli([*base, "--jobs", "1", "--json", local[0], "--csv", local[1]]) == 0
    assert _cli([*base, "--cluster", dask_cluster.scheduler_address, "--json", dask[0], "--csv", dask[1]]) == 0
    assert json.loads(Path(dask[0]).read_text()) == json.loads(Path(local[0]).read_text())
    assert Path(dask[1]).read_text() == Path(local[1]).read_text()
    assert not journal_path(dask[0]).exists()


def test_dask_executor_streams_rows_and_run_data(dask_cluster, tmp_path):
    """The Dask executor emits every career (rows equal to run_career's) and, when asked,
    run data whose run directories equal the local executor's."""
    from distributed import Client

    groups = [
        Group("baseline", "baseline", WorldConfig(months=14), (1, 2, 3)),
        Group("hire-max", "hire-max", WorldConfig(months=14), (2,)),
    ]
    with Client(dask_cluster) as client:
        got = run_sweep(groups, DaskExecutor(client), save_runs=tmp_path / "dask", scenario="s")
    want = run_sweep(groups, LocalExecutor(1), save_runs=tmp_path / "local", scenario="s")
    assert got == want
    assert got["baseline"] == [run_career("baseline", s, WorldConfig(months=14)) for s in (1, 2, 3)]
    for d in sorted((tmp_path / "local").rglob("result.json")):
        twin = tmp_path / "dask" / d.relative_to(tmp_path / "local")
        a, b = json.loads(d.read_text()), json.loads(twin.read_text())
        a.pop("wall_s"), b.pop("wall_s")
        assert a == b
        assert (d.parent / "months.jsonl").read_text() == (twin.parent / "months.jsonl").read_text()


def test_cluster_and_jobs_together_are_refused(tmp_path, capsys):
    """``--jobs`` and ``--cluster`` together are a usage error (exit 2) asking to choose one."""
    assert _cli(["run", "baseline", "--seeds", "1", "--jobs", "2", "--cluster", "tcp://127.0.0.1:1"]) == 2
    assert "choose one of --jobs" in capsys.readouterr().err


class _CountingExecutor(LocalExecutor):
    """A local executor that counts the careers it is asked to play and can stop the sweep
    (as Ctrl-C would) after ``stop_after`` careers."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__(1)
        self.asked: list[tuple[str, int]] = []
        self.stop_after = stop_after

    def run(self, groups, emit, record=False):
        self.asked += [(g.key, s) for g in groups for s in g.seeds]
        emitted = 0

        def stopping_emit(key, row, run):
            nonlocal emitted
            if self.stop_after is not None and emitted == self.stop_after:
                raise KeyboardInterrupt
            emit(key, row, run)
            emitted += 1

        super().run(groups, stopping_emit, record)


def _with_executor(monkeypatch, executor):
    monkeypatch.setattr(sweep_pkg, "make_executor", lambda jobs=1, cluster=None: executor)


def test_interrupted_sweep_resumes_without_replaying_finished_careers(tmp_path, monkeypatch, capsys):
    """Interrupted after 3 careers, the same command resumes: it plays only the missing
    careers, says how many it read back, and writes byte-identical JSON and CSV to an
    uninterrupted run; the journal is then removed."""
    cmd = ["compare", "baseline", "hire-max", "--seeds", "11-14"]
    ref_json, ref_csv = tmp_path / "ref.json", tmp_path / "ref.csv"
    assert _cli([*cmd, "--json", str(ref_json), "--csv", str(ref_csv)]) == 0
    out_json, out_csv = tmp_path / "out.json", tmp_path / "out.csv"
    files = ["--json", str(out_json), "--csv", str(out_csv)]

    first = _CountingExecutor(stop_after=3)
    _with_executor(monkeypatch, first)
    assert _cli([*cmd, *files]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 3 of 8 careers kept" in err and "run the same command again" in err
    assert not out_json.exists() and not out_csv.exists()
    journal = journal_path(out_json)
    assert len(journal.read_text().splitlines()) == 1 + 3

    second = _CountingExecutor()
    _with_executor(monkeypatch, second)
    assert _cli([*cmd, *files]) == 0
    assert "resuming: 3 finished career(s)" in capsys.readouterr().err
    assert len(second.asked) == 8 - 3
    assert not set(second.asked) & set(first.asked[:3])
    assert out_json.read_bytes() == ref_json.read_bytes()
    assert out_csv.read_bytes() == ref_csv.read_bytes()
    assert not journal.exists()


@pytest.mark.slow
def test_killed_sweep_process_resumes(tmp_path):
    """A `pibench run` killed (SIGKILL) mid-sweep leaves a journal; the same command then
    reads the finished careers back and writes the file an uninterrupted run writes."""
    out = tmp_path / "out.json"
    ref = tmp_path / "ref.json"
    cmd = [sys.executable, "-m", "pibench_tui", "run", "baseline", "--seeds", "21-32"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*cmd, "--json", str(out)], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    journal = journal_path(out)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) >= 1 + 2:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the sweep ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = len(journal.read_text().splitlines()) - 1
    assert 2 <= kept < 12 and not out.exists()
    again = subprocess.run(
        [*cmd, "--json", str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming: {kept} finished career(s)" in again.stderr
    assert (
        subprocess.run([*cmd, "--json", str(ref)], cwd=tmp_path, env=env, capture_output=True, timeout=300).returncode
        == 0
    )
    assert out.read_bytes() == ref.read_bytes()
    assert not journal.exists()


def test_a_journal_of_other_settings_is_refused(tmp_path, monkeypatch, capsys):
    """Resuming with other seeds (or policies) is refused with a message naming what differs
    and how to start over; the journal is left as it was."""
    out = tmp_path / "o.json"
    _with_executor(monkeypatch, _CountingExecutor(stop_after=1))
    assert _cli(["run", "baseline", "--seeds", "1-3", "--json", str(out)]) == 130
    capsys.readouterr()
    before = journal_path(out).read_bytes()
    assert _cli(["run", "baseline", "--seeds", "1-4", "--json", str(out)]) == 1
    err = capsys.readouterr().err
    assert "other settings" in err and "seeds of baseline: 1, 2, 3 there, 1, 2, 3, 4 now" in err and "delete" in err
    assert _cli(["run", "oracle", "--seeds", "1-3", "--json", str(out)]) == 1
    assert "policies/variants: baseline there, oracle now" in capsys.readouterr().err
    assert journal_path(out).read_bytes() == before


def test_a_torn_last_journal_line_is_dropped(tmp_path):
    """A kill in the middle of a line leaves a torn line: it is ignored and cut, and the
    next career is appended on a line of its own."""
    settings = {"command": "run", "groups": []}
    path = tmp_path / "j.partial.jsonl"
    j = SweepJournal(path, settings)
    j.append("baseline", {"seed": 5, "impact": 1.0})
    j.close()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"key": "baseline", "seed": 6, "ro')
    again = SweepJournal(path, settings)
    assert again.rows == {("baseline", 5): {"seed": 5, "impact": 1.0}}
    again.append("baseline", {"seed": 7, "impact": 2.0})
    again.close()
    assert set(SweepJournal(path, settings).rows) == {("baseline", 5), ("baseline", 7)}


def test_save_runs_writes_replayable_run_directories(tmp_path):
    """`pibench run --save-runs DIR` writes DIR/<policy>/<scenario>-<seed>/ with result.json
    (kind policy, the career's digest and Impact), actions.jsonl that replays to the same
    digest, one months.jsonl line per closed month (report and dashboard) and eval.json (the
    capability axes of the career's row)."""
    runs = tmp_path / "runs"
    assert _cli(["run", "baseline", "--scenario", "short-12", "--seeds", "7,8", "--save-runs", str(runs)]) == 0
    from scenarios import load_scenario

    cfg = load_scenario("short-12").config
    for seed in (7, 8):
        d = runs / "baseline" / f"short-12-{seed}"
        result = json.loads((d / "result.json").read_text())
        row = run_career("baseline", seed, cfg)
        assert result["format"] == "pibench-run/1" and result["kind"] == "policy"
        assert (result["label"], result["policy"], result["scenario"], result["seed"]) == (
            "baseline",
            "baseline",
            "short-12",
            seed,
        )
        assert result["impact"]["total"] == row["impact"] and result["months_played"] == row["months"]
        actions = [json.loads(x) for x in (d / "actions.jsonl").read_text().splitlines()]
        world = replay(WorldConfig.from_dict(result["config"]), seed, actions)
        assert world.digest() == result["digest"]
        months = [json.loads(x) for x in (d / "months.jsonl").read_text().splitlines()]
        assert [m["month"] for m in months] == list(range(1, result["months_played"] + 1))
        assert all(set(m) == {"month", "report", "dashboard"} for m in months)
        assert [m["report"]["month"] for m in months] == [m["month"] for m in months]
        assert months[0]["dashboard"]["month"] == 2
        evaluation = json.loads((d / "eval.json").read_text())
        assert evaluation["axes"] == row["axes"] and evaluation["eval_log"]
        from pibench_tui.harness.replay import verify_run

        verdict = verify_run(d)  # what `pibench replay` checks
        assert verdict["valid"], verdict["message"]


@pytest.mark.parametrize("command", ["run", "compare", "ablate", "calibrate", "tune"])
def test_every_sweep_command_takes_cluster_and_jobs(command, capsys):
    """`pibench run|compare|ablate|calibrate|tune --help` offers --cluster ADDRESS beside --jobs N."""
    assert _cli([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "--cluster ADDRESS" in out and "--jobs N" in out
