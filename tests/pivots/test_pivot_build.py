"""`pibench pivots build` (issue 24 part 2): the same files whatever --jobs, resumable, usable
by eval/score as they are, and clear refusals of bad settings."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pibench_tui.pivots.build import BuildSettings, build
from pibench_tui.pivots.cases import load_cases, load_key
from pibench_tui.pivots.fork_record import action_log_to_fork

TINY = BuildSettings(seeds=(1,), months=(2, 14), screen=4, confirm=6, stability=True, prefix="t")


def pibench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=600, check=False
    )


def test_build_writes_the_same_files_whatever_jobs_and_they_load(tmp_path: Path) -> None:
    """One worker and two give byte-identical cases.jsonl, key.jsonl and build.json; the set
    loads with the strict readers (every key consistent with its numbers), and every case's
    record is its seed's career at the fork."""
    one = build(TINY, tmp_path / "one", jobs=1)
    two = build(TINY, tmp_path / "two", jobs=2)
    for name in ("cases.jsonl", "key.jsonl", "build.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert one["cases"] == two["cases"]
    assert one["cases"] >= 1  # seed 1 at months 2 and 14 keeps a case with these branches
    cases = load_cases(tmp_path / "one")
    key = load_key(tmp_path / "one", cases)
    for case in cases:
        action_log_to_fork(case)  # raises if the record is not the career at the fork
        assert key[case.id].better in ("A", "B")
    assert one["candidates"] >= one["screened"] >= one["kept_before_caps"] >= one["cases"]


def test_an_interrupted_build_resumes_from_its_journal(tmp_path: Path) -> None:
    """A build whose journal lost its last task (as if killed) recomputes only that task and
    writes the same files; a build of other settings into the folder is refused, naming the
    settings that differ."""
    build(TINY, tmp_path / "b")
    before = {n: (tmp_path / "b" / n).read_bytes() for n in ("cases.jsonl", "key.jsonl")}
    journal = tmp_path / "b" / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]))
    build(TINY, tmp_path / "b")
    assert len(journal.read_text().splitlines()) == len(lines)
    assert {n: (tmp_path / "b" / n).read_bytes() for n in before} == before
    other = BuildSettings(seeds=(2,), months=(2,), screen=4, confirm=6)
    try:
        build(other, tmp_path / "b")
    except ValueError as exc:
        assert "other settings" in str(exc)
        assert "(differ: seeds, months, prefix)" in str(exc)
    else:
        raise AssertionError("a build of other settings was not refused")


def test_the_command_refuses_bad_settings_and_builds_a_set_eval_can_use(tmp_path: Path) -> None:
    """`pivots build` with an unknown kind or bad --branches exits 2 naming what is valid; a
    tiny real build is evaluated and scored by the scripted judge `first` (exactly 0.5)."""
    r = pibench("pivots", "build", "--out", str(tmp_path / "x"), "--kinds", "hiring,gardening")
    assert r.returncode == 2 and "valid: hiring" in r.stderr
    r = pibench("pivots", "build", "--out", str(tmp_path / "x"), "--branches", "16")
    assert r.returncode == 2 and "S,C" in r.stderr
    out = tmp_path / "set"
    r = pibench("pivots", "build", "--out", str(out), "--seeds", "1", "--kinds", "staffing,spending",
                "--branches", "4,6", "--no-stability")  # fmt: skip
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "build.json").read_text())
    assert set(summary["by_kind"]) <= {"staffing", "spending"} and summary["cases"] >= 1
    run = tmp_path / "run"
    assert pibench("pivots", "eval", "--cases", str(out), "--judge", "first", "--out", str(run)).returncode == 0
    s = pibench("pivots", "score", str(run), "--json", str(tmp_path / "s.json"))
    assert s.returncode == 0, s.stderr
    assert json.loads((tmp_path / "s.json").read_text())["runs"][0]["overall"]["accuracy"] == 0.5
    # the lookahead judge plays its own futures (never the key's): on cases kept because the
    # futures agree, it is right far more often than chance
    look = tmp_path / "look"
    assert pibench("pivots", "eval", "--cases", str(out), "--judge", "lookahead", "--out", str(look)).returncode == 0
    assert (
        pibench("pivots", "eval", "--cases", str(out), "--judge", "baseline", "--out", str(tmp_path / "b")).returncode
        == 0
    )
    s = pibench("pivots", "score", str(look), str(tmp_path / "b"), "--json", str(tmp_path / "s2.json"))
    runs = {r["label"]: r["overall"] for r in json.loads((tmp_path / "s2.json").read_text())["runs"]}
    assert runs["lookahead"]["accuracy"] >= 0.75
    assert runs["baseline"]["unanswered"] % 2 == 0  # no preference is the same in both orders


@pytest.mark.parametrize("inside", [False, True])
def test_an_out_that_is_a_file_is_refused_naming_it(tmp_path: Path, inside: bool) -> None:
    """`pivots build --out F` with F a regular file (or --out F/x): before, a traceback
    (FileExistsError / NotADirectoryError from mkdir); now the ValueError the command reports
    (exit 1) naming F as a file where a folder goes and --out, before any task; F is kept."""
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    out = blocker / "x" if inside else blocker
    with pytest.raises(ValueError, match=r"--out .*afile is a file, not a folder; use another --out"):
        build(TINY, out)
    assert blocker.read_text() == "mine"
    r = pibench("pivots", "build", "--out", str(out), "--seeds", "1", "--months", "6", "--branches", "4,8")
    assert r.returncode == 1 and "Traceback" not in r.stderr and "is a file, not a folder" in r.stderr


def test_plan_code_is_read_never_run(tmp_path: Path) -> None:
    """The scripted judges read a plan's calls from its code with the parser; code that is not
    `namespace.method(name=literal)` lines (an import, a call with a computed argument) is
    refused naming the case and plan, and never executed."""
    from pibench_tui.pivots.cases import _case
    from pibench_tui.pivots.fork_record import plan_calls

    def case(code: str):  # noqa: ANN202
        plans = {"A": {"text": "a", "code": code}, "B": {"text": "b", "code": "pass\n"}}
        record = {"rules": {}, "dashboard": {}, "reports": []}
        return _case(
            {"format": 1, "id": "c1", "kind": "hiring", "fork_month": 2, "record": record, "plans": plans}, "t"
        )

    assert plan_calls(case("recruit.offer(applicant_id='APP001')\n"), "A") == (
        ("recruit", "offer", {"applicant_id": "APP001"}),
    )
    assert plan_calls(case("pass\n"), "B") == ()
    for bad in ("import os\n", "recruit.offer(applicant_id=open('/etc/passwd').read())\n", "x = 1\n"):
        try:
            plan_calls(case(bad), "A")
        except Exception as exc:  # noqa: BLE001
            assert "case c1: plan A" in str(exc)
        else:
            raise AssertionError(f"{bad!r} was accepted")


def test_a_build_on_a_dask_cluster_writes_the_same_files(tmp_path: Path) -> None:
    """The same settings built on a Dask cluster (the sweeps' executor) and with one local
    worker give byte-identical case, key and build files."""
    import distributed

    local = build(TINY, tmp_path / "local")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as c:
        on_dask = build(TINY, tmp_path / "dask", cluster=c.scheduler_address)
    assert local["cases"] == on_dask["cases"] >= 1
    for name in ("cases.jsonl", "key.jsonl", "build.json"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes()


def _seal_file(path: Path, seeds: list[int]) -> str:
    """A seal file holding chosen seeds (``pibench seal`` draws them at random: a test needs
    a seed known to keep a case)."""
    from pibench_tui.cli.seeds import SEAL_FORMAT, commit_seed, file_commitment, write_seal

    rows = [{"seed": s, "salt": f"{i:032x}", "commitment": commit_seed(s, f"{i:032x}")} for i, s in enumerate(seeds)]
    write_seal(
        {"format": SEAL_FORMAT, "seeds": rows, "commitment": file_commitment([r["commitment"] for r in rows])}, path
    )
    return f"@{path}"


def test_a_sealed_build_publishes_no_seed_and_commits_to_its_key(tmp_path: Path) -> None:
    """`pivots build --seeds @FILE --seal DIR`: the published folder holds cases and a public
    build.json with no seed anywhere (cases carry the seed's commitment) and no key; the key
    and journal are in the private folder; score takes that key, and refuses an edited one
    (its SHA-256 differs from build.json's commitment). Sealed seeds without --seal, --seal
    without sealed seeds, and --seal inside --out are refused, naming why."""
    seeds = _seal_file(tmp_path / "seal.json", [1])
    out, private = tmp_path / "set", tmp_path / "private"
    common = ["--kinds", "staffing,spending", "--months", "2,14", "--branches", "4,6", "--no-stability"]
    r = pibench("pivots", "build", "--out", str(out), "--seeds", seeds, "--seal", str(private), *common)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["build.json", "cases.jsonl"]
    published = (out / "cases.jsonl").read_text() + (out / "build.json").read_text()
    cases = load_cases(out)
    assert cases and all(c.raw["seed"] is None and c.raw["commitment"] for c in cases)
    assert '"seed": 1,' not in published and '"seeds": [1]' not in published and "sealed:" in published
    assert (private / "key.jsonl").exists() and (private / "journal.jsonl").exists()
    assert stat.S_IMODE(private.stat().st_mode) == 0o700  # the key and the seeds: the owner's alone
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in private.iterdir()} == {
        name: 0o600 for name in ("build.json", "journal.json", "journal.jsonl", "key.jsonl")
    }
    load_key(private, cases)
    run = tmp_path / "run"
    assert pibench("pivots", "eval", "--cases", str(out), "--judge", "first", "--out", str(run)).returncode == 0
    nokey = pibench("pivots", "score", str(run))  # no key beside a sealed set: say so and what to give
    assert nokey.returncode == 1 and "is sealed" in nokey.stderr and "--key FILE" in nokey.stderr, nokey.stderr
    ok = pibench("pivots", "score", str(run), "--key", str(private / "key.jsonl"))
    assert ok.returncode == 0, ok.stderr
    lines = (private / "key.jsonl").read_text().splitlines(keepends=True)
    flipped = json.loads(lines[0])
    flipped["better"], flipped["delta"], flipped["ci"] = (
        "B" if flipped["better"] == "A" else "A",
        -flipped["delta"],
        [-flipped["ci"][1], -flipped["ci"][0]],
    )
    flipped["impact"] = {"A": flipped["impact"]["B"], "B": flipped["impact"]["A"]}
    (tmp_path / "edited.jsonl").write_text(json.dumps(flipped) + "\n" + "".join(lines[1:]))
    bad = pibench("pivots", "score", str(run), "--key", str(tmp_path / "edited.jsonl"))
    assert bad.returncode == 1 and "not the answer key this sealed set was built with" in bad.stderr
    r = pibench("pivots", "build", "--out", str(tmp_path / "x"), "--seeds", seeds, *common)
    assert r.returncode == 1 and "--seal DIR" in r.stderr
    r = pibench("pivots", "build", "--out", str(tmp_path / "x"), "--seeds", "1", "--seal", str(tmp_path / "p"), *common)
    assert r.returncode == 1 and "needs sealed seeds" in r.stderr
    r = pibench("pivots", "build", "--out", str(out), "--seeds", seeds, "--seal", str(out / "p"), *common)
    assert r.returncode == 1 and "inside --out" in r.stderr


def _baseline_run(folder: Path, seed: int) -> Path:
    """A run directory as `pibench agent` leaves it (result.json with config and seed,
    actions.jsonl), holding the baseline policy's own career of ``seed``."""
    from scenarios import load_scenario
    from world.engine import World
    from world.policies import make_policy
    from world.runner import play

    cfg = load_scenario("standard").config
    world = play(World(cfg, seed), make_policy("baseline"))
    folder.mkdir(parents=True)
    (folder / "result.json").write_text(json.dumps({"seed": seed, "config": cfg.to_dict(), "label": "agent"}))
    (folder / "actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in world.s.action_log))
    return folder


def test_a_build_along_a_recorded_run_forks_the_agents_own_career(tmp_path: Path) -> None:
    """`--runs`: a recorded run that is the baseline's career of seed 1 gives the same
    decisions and the same answer key as the seed build (same world at each fork, same
    futures); its cases carry the run's calls up to the fork, which replay to the record.
    A run whose actions.jsonl changes after the build started is refused on resume."""
    run = _baseline_run(tmp_path / "runs" / "agent" / "standard-1", 1)
    from pibench_tui.pivots.build import find_runs

    along = BuildSettings(seeds=(), runs=find_runs([tmp_path / "runs"]), months=(2, 14), screen=4, confirm=6,
                          stability=False, prefix="t")  # fmt: skip
    seeded = BuildSettings(seeds=(1,), months=(2, 14), screen=4, confirm=6, stability=False, prefix="t")
    a = build(along, tmp_path / "along")
    b = build(seeded, tmp_path / "seeded")
    assert a["cases"] == b["cases"] >= 1
    ka = [json.loads(x) for x in (tmp_path / "along" / "key.jsonl").read_text().splitlines()]
    kb = [json.loads(x) for x in (tmp_path / "seeded" / "key.jsonl").read_text().splitlines()]
    assert [{k: v for k, v in x.items() if k != "id"} for x in ka] == [
        {k: v for k, v in x.items() if k != "id"} for x in kb
    ]
    for case in load_cases(tmp_path / "along"):
        assert case.raw["career"] == "run/agent/standard-1" and case.raw["seed"] == 1
        config, seed, log = action_log_to_fork(case)
        assert log == case.raw["actions"] and all(row[0] < case.fork_month for row in log)
    with (run / "actions.jsonl").open("a") as fh:
        fh.write(json.dumps([60, "time.next_month", {}]) + "\n")
    journal = tmp_path / "along" / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:1]))
    try:
        build(along, tmp_path / "along")
    except ValueError as exc:
        assert "changed since the build started" in str(exc)
    else:
        raise AssertionError("a changed run was used")


@pytest.mark.slow
def test_ctrl_c_stops_a_build_at_once_keeps_finished_tasks_and_the_same_command_resumes(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the command's process group, as a terminal sends it) during a
    `--jobs 2` build: the command says it was interrupted, where the finished tasks are kept
    and how to resume, with no traceback; no worker process is left behind; the journal's
    finished tasks stay and the same command completes the build without recomputing them.
    Without a terminal the progress is printed as plain `done/total` lines."""
    out = tmp_path / "set"
    cmd = [sys.executable, "-m", "pibench_tui", "pivots", "build", "--out", str(out), "--seeds", "1-6",
           "--months", "2,14", "--branches", "4,6", "--no-stability", "--jobs", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    journal = out / "journal.jsonl"
    while proc.poll() is None and not (journal.exists() and journal.read_text().count("\n") >= 1):
        time.sleep(0.2)
    assert proc.poll() is None, "the build ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    assert "interrupted" in err and "Run the same command again to resume" in err and str(journal) in err, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "/12 tasks (" in err  # plain progress lines on a pipe
    left = [p for p in Path("/proc").glob("[0-9]*") if str(out) in _cmdline(p)]
    assert not left, f"worker processes left: {left}"
    kept = journal.read_text().splitlines(keepends=True)
    assert 1 <= len(kept) < 12
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, check=False)
    assert again.returncode == 0, again.stderr
    lines = journal.read_text().splitlines(keepends=True)
    assert lines[: len(kept)] == kept and len(lines) == 12  # the finished tasks were not run again


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def test_build_progress_without_a_terminal_prints_a_line_every_tenth(capsys: pytest.CaptureFixture[str]) -> None:
    """Off a terminal the build's progress is plain lines: done/total, the share and the
    elapsed time, at every tenth of the way (not after every task), and a new phase (the
    survey, then the tasks) starts its own count."""
    from pibench_tui.pivots.cli import BuildProgress

    show = BuildProgress(every=1e9, tty=False)
    with show:
        for done in range(1, 5):
            show(done, 4, "careers surveyed")
        for done in range(1, 41):
            show(done, 40, "tasks")
    lines = capsys.readouterr().err.splitlines()
    assert [x.split(" (")[0] for x in lines] == [f"pivots build: {n}/4 careers surveyed" for n in range(1, 5)] + [
        f"pivots build: {n}/40 tasks" for n in (1, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40)
    ]
    assert all("elapsed" in x for x in lines) and show.done_this_run == 44


def test_build_help_states_every_default() -> None:
    """`pivots build --help` gives the default of each option that has one (months, jobs,
    cases, branches, kinds ...) in one form, `(default: X)`, formatted from the settings."""
    from pibench_tui.cli.command import build_parser

    def sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
        found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return found[0].choices[name]

    text = " ".join(sub(sub(build_parser(["pivots"]), "pivots"), "build").format_help().split("options:")[1].split())
    d = BuildSettings()
    for option, default in (
        ("--months SPEC", ",".join(map(str, d.months))),
        ("--jobs JOBS", "1"),
        ("--cases N", "no limit"),
        ("--branches S,C", f"{d.screen},{d.confirm}"),
        ("--per-career K", str(d.per_career)),
        ("--min-effect SHARE", str(d.min_share)),
    ):
        after = text.split(option, 1)[1].split(" --", 1)[0]
        assert f"(default: {default})" in after, (option, after)


def test_screening_drops_a_pair_that_never_parts_ways_after_half_the_branches(monkeypatch) -> None:  # noqa: ANN001
    """With finder generation 2, a pair whose plans give the same Impact on each of the first
    S/2 screening branches is dropped without playing the rest (the rollouts go to decisions that can matter); a pair
    that parts ways is played on all S."""
    import world.pivots as wp
    from pibench_tui.pivots.build import BuildSettings, _screen

    played: list[int] = []

    def fake_rollout(world, plan, kind, branch, policy="baseline"):  # noqa: ANN001, ANN202
        played.append(branch)
        return (100.0 + (50.0 * branch if plan.text == "A" and world == "apart" else 0.0), False, frozenset())

    monkeypatch.setattr(wp, "rollout_calls", fake_rollout)
    d = wp.Decision("staffing", "q", wp.Plan("A"), wp.Plan("B"))
    settings = BuildSettings(screen=8, finders=2)
    assert _screen("same", d, settings) is False and sorted(set(played)) == [1, 2, 3, 4]
    played.clear()
    assert _screen("apart", d, settings) is True and sorted(set(played)) == list(range(1, 9))


def test_grants_months_are_those_of_the_shortest_runway_and_each_kind_has_its_own_budget() -> None:
    """With ``stress_kinds`` a career's grants decisions are screened at the months its survey
    saw the shortest runway (a lab that burns nothing counts as endless; ties the earliest), not
    spread evenly; ``per_kind_by`` gives a kind its own number of months."""
    from pibench_tui.pivots.build import planned

    settings = BuildSettings(
        seeds=(1,), kinds=("grants", "staffing"), per_kind=2, per_kind_by=(("staffing", 3),), stress_kinds=("grants",)
    )
    survey = {
        "found": {"grants": [2, 3, 4, 5, 6], "staffing": [2, 4, 6, 8, 10]},
        "runway": [[2, None], [3, 30.0], [4, 12.5], [5, 9.0], [6, 12.5]],
    }
    assert planned(settings, {1: survey}) == {
        (1, 2): ["staffing"],
        (1, 4): ["grants"],
        (1, 5): ["grants"],
        (1, 6): ["staffing"],
        (1, 10): ["staffing"],
    }
    spread_out = dataclasses.replace(settings, stress_kinds=())
    assert [m for (_, m), kinds in planned(spread_out, {1: survey}).items() if "grants" in kinds] == [2, 6]


def test_the_survey_notes_the_runway_the_dashboard_showed_where_a_stress_kind_was_open() -> None:
    """The survey of a career records, for each candidate month where grants were open, the
    dashboard's runway at the start of that month (what the PI saw: the same as the record a
    case at that fork holds); without stress kinds it records none."""
    from pibench_tui.pivots.build import _record, survey_task

    settings = BuildSettings(seeds=(3,), months=(2, 20, 40), finders=2, per_kind=1, stress_kinds=("grants",))
    out = survey_task((settings, 3))
    assert [m for m, _ in out["runway"]] == out["found"]["grants"] == [2, 20, 40]
    for m, runway in out["runway"]:
        assert runway == _record(3, m, settings)[1]["dashboard"]["runway_months"]
    assert "runway" not in survey_task((dataclasses.replace(settings, stress_kinds=()), 3))


def test_finders_option_picks_the_generation() -> None:
    """`--finders N` sets the finder generation of a build (in build.json's settings and the
    fingerprint); without it the preset's or the default; an unknown generation is refused
    naming the valid ones."""
    from pibench_tui.cli.command import build_parser
    from pibench_tui.pivots.build import PRESETS
    from pibench_tui.pivots.cli import _build_settings
    from world.pivots import FINDER_GENERATIONS

    def settings(*args: str) -> BuildSettings:
        argv = ["pivots", "build", "--out", "x", *args]
        return _build_settings(build_parser(argv).parse_args(argv))

    assert settings("--finders", "2").finders == 2 and settings("--finders", "1").finders == 1
    assert settings().finders == BuildSettings().finders
    assert settings("--preset", "dev").finders == PRESETS["dev"].finders
    assert settings("--preset", "dev", "--finders", str(max(FINDER_GENERATIONS))).finders == max(FINDER_GENERATIONS)
    with pytest.raises(ValueError, match=r"--finders is a finder generation \(1, 2\), got 7"):
        settings("--finders", "7")


def test_the_stricter_keep_rule_refuses_a_delta_within_two_standard_errors() -> None:
    """A real confirmation (32 branches, a month-2 staffing pair of the first dev set) whose
    percentile bootstrap interval excludes 0 only because two branches carry the difference:
    the issue's rule keeps it, `min_se` 2 (|Δ| at least two standard errors) does not."""
    from world.pivots import Truth, keep

    a = [296.6, 68.0, 65.0, 518.6, 111.0, 441.9, 292.6, 193.8, 286.7, 25.2, 292.6, 289.0, 252.3, 142.2, 519.3, 377.7,
         562.1, 69.0, 1024.7, 447.6, 340.9, 101.0, 1082.1, 355.1, 372.2, 449.7, 18.0, 66.0, 340.0, 52.0, 433.5, 74.0]  # fmt: skip
    b = [296.6, 349.2, 1043.5, 518.6, 81.0, 441.9, 292.6, 158.2, 286.7, 19.8, 292.6, 289.0, 254.6, 142.2, 521.8, 377.7,
         573.9, 124.0, 1024.7, 448.9, 337.7, 101.0, 1098.0, 355.1, 372.2, 449.7, 25.0, 120.0, 339.0, 46.0, 435.3, 97.0]  # fmt: skip
    t = Truth(list(range(41, 73)), {"A": a, "B": b}, {"A": [False] * 32, "B": [False] * 32})
    assert t.interval()[1] < 0.0 and abs(t.delta) < 2.0 * t.standard_error()
    assert keep(t) is True
    assert keep(t, min_se=2.0) is False


def test_a_confirmation_stops_after_half_when_its_delta_is_within_the_stop_rule(monkeypatch) -> None:  # noqa: ANN001
    """With `confirm_stop`, a pair whose |Δ| over the first half of the confirmation branches is
    below that many standard errors is dropped without the second half; a pair that goes on
    gets the Truth of all C branches, the same as played whole (its key never depends on the
    stop)."""
    import world.pivots as wp
    from pibench_tui.pivots.build import _confirm

    played: list[int] = []

    def fake_rollout(world, plan, kind, branch, policy="baseline"):  # noqa: ANN001, ANN202
        played.append(branch)
        wobble = 10.0 if branch % 2 else -10.0
        gap = 40.0 if world == "clear" else 0.0
        return (100.0 + (gap + wobble if plan.text == "A" else 0.0), branch == 11, frozenset())

    monkeypatch.setattr(wp, "rollout_calls", fake_rollout)
    d = wp.Decision("staffing", "q", wp.Plan("A", (("recruit", "hire_ra", {}),)), wp.Plan("B"))
    settings = BuildSettings(screen=8, confirm=8, confirm_stop=1.0)
    assert _confirm("noise", d, settings, {}) is None
    assert sorted(set(played)) == [9, 10, 11, 12]
    played.clear()
    went_on = _confirm("clear", d, settings, {})
    assert sorted(set(played)) == list(range(9, 17))
    whole = wp.truth("clear", d, range(9, 17))
    assert went_on is not None
    assert (went_on.branches, went_on.impact, went_on.collapsed) == (whole.branches, whole.impact, whole.collapsed)
    assert _confirm("noise", d, dataclasses.replace(settings, confirm_stop=0.0), {}) is not None  # off: played whole


def test_a_cases_record_holds_the_month_reports_as_the_pi_was_told_them() -> None:
    """The record a build stores is what time.last_report() gave the PI each month
    (world.report.pi_view): the offers the PI made and the season's applicant counts, never
    the applicants not offered a place as "expired" offers."""
    from pibench_tui.pivots.build import _record

    _, record, _ = _record(1, 6, TINY)
    offers = [o for r in record["reports"] for o in r["offers"]]
    assert all(o["outcome"] != "expired" for o in offers)
    pools = [r["applicant_pool"] for r in record["reports"] if r.get("applicant_pool")]
    assert pools and all(p["applicants"] == p["offered"] + p["never_offered"] for p in pools)
    assert any(p["never_offered"] > 0 for p in pools)
