"""Sealed seeds through the policy front ends (issue 25 §1 and §3, QA 25-28 F2 and F12):
``pibench run``/``compare --seeds @FILE`` name every career by ``sealed:<commitment
prefix>`` in folders, files and output, never by its seed; ``pibench report`` pairs sealed
policy and agent careers of one seal by commitment; and a seal file's seeds are numbered
the same way by every command."""

from __future__ import annotations

import json
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from pibench_tui.cli.seeds import read_seal


def _seal(tmp_path: Path, count: int, capsys) -> tuple[Path, list[dict], str]:
    path = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", str(count), "--out", str(path)]) == 0
    return path, read_seal(path)["seeds"], capsys.readouterr().out


def test_a_changed_seed_is_named_by_the_number_pibench_seal_printed_for_it(tmp_path, capsys):
    """`pibench seal` prints seed #0 first; when that seed is edited in the file, every
    command that reads the seal (`pibench unseal`, `--seeds @FILE`; `report --seal` and
    `replay --seal` read it the same way) names it seed #0 (before: seed #1, the number
    `pibench seal` gave the next seed)."""
    seal, rows, printed = _seal(tmp_path, 2, capsys)
    assert f"seed #0  commitment {rows[0]['commitment']}" in printed
    data = json.loads(seal.read_text())
    data["seeds"][0]["seed"] = 101
    seal.write_text(json.dumps(data))
    assert pibench_main(["unseal", str(seal)]) == 1
    err = capsys.readouterr().err
    assert "seed #0 does not match its commitment" in err, err
    assert "seed #1" not in err
    assert pibench_main(["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal}"]) == 2
    err = capsys.readouterr().err
    assert "seed #0 does not match its commitment" in err, err


def _texts(*paths: Path) -> str:
    """Every file under ``paths`` (and the files themselves) as one text."""
    out = []
    for p in paths:
        files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())
        out += [f"{f.relative_to(p.parent)}\n{f.read_text(errors='replace')}" for f in files]
    return "\n".join(out)


def _leaks(text: str, seeds: list[int]) -> list[int]:
    return [s for s in seeds if str(s) in text]


def test_sealed_policy_runs_name_every_career_by_its_commitment_never_its_seed(tmp_path, capsys):
    """`pibench run baseline --seeds @FILE --save-runs DIR --json --csv` and `pibench
    compare --json --csv` write no sealed seed anywhere: run folders are
    `<scenario>-sealed-<prefix>` (as `pibench agent` names sealed careers), result.json has
    `seed` null and `seed_commitment` (the world summary's seed removed), JSON and CSV rows
    `seed` null with `seed_commitment`, the JSON's seed list the commitments, and the tables
    `sealed:<prefix>`. Before, the folders were named after the seeds and every file and the
    outputs held them."""
    seal, rows, _ = _seal(tmp_path, 2, capsys)
    seeds, commits = [int(r["seed"]) for r in rows], [r["commitment"] for r in rows]
    runs, out = tmp_path / "runs", tmp_path / "out"
    out.mkdir()
    argv = ["--scenario", "short-12", "--seeds", f"@{seal}"]
    assert (
        pibench_main(
            [
                "run",
                "baseline",
                *argv,
                "--save-runs",
                str(runs),
                "--json",
                str(out / "r.json"),
                "--csv",
                str(out / "r.csv"),
            ]
        )
        == 0
    )
    assert (
        pibench_main(
            ["compare", "baseline", "do-nothing", *argv, "--json", str(out / "c.json"), "--csv", str(out / "c.csv")]
        )
        == 0
    )
    printed = capsys.readouterr()
    assert _leaks(printed.out + printed.err + _texts(runs, out), seeds) == []
    assert sorted(p.name for p in (runs / "baseline").iterdir()) == sorted(f"short-12-sealed-{c[:12]}" for c in commits)
    for c in commits:
        res = json.loads((runs / "baseline" / f"short-12-sealed-{c[:12]}" / "result.json").read_text())
        assert res["seed"] is None and res["seed_commitment"] == c
    doc = json.loads((out / "r.json").read_text())
    assert doc["seeds"] is None and doc["seed_commitments"] == commits
    assert [(r["seed"], r["seed_commitment"]) for r in doc["rows"]] == [(None, c) for c in commits]
    compared = json.loads((out / "c.json").read_text())
    assert [r["seed_commitment"] for r in compared["rows"]["do-nothing"]] == commits
    assert (out / "r.csv").read_text().splitlines()[0].startswith("seed,seed_commitment,")
    assert all(f"sealed:{c[:12]}" in printed.out for c in commits)


def test_an_interrupted_sealed_sweep_keeps_no_seed_in_its_journal_and_resumes(tmp_path, capsys, monkeypatch):
    """A sealed `pibench run --json` interrupted after its first career leaves a journal
    that names no seed (its settings and rows hold commitments); the same command then
    resumes from it (the finished career is read back, not played again) and writes the
    sealed rows."""
    from pibench_tui.sweep import journal

    seal, rows, _ = _seal(tmp_path, 3, capsys)
    seeds, commits = [int(r["seed"]) for r in rows], [r["commitment"] for r in rows]
    real_append = journal.SweepJournal.append

    def append_then_stop(self, key, row):
        real_append(self, key, row)
        raise KeyboardInterrupt

    monkeypatch.setattr(journal.SweepJournal, "append", append_then_stop)
    out = tmp_path / "r.json"
    argv = ["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal}", "--json", str(out)]
    assert pibench_main(argv) == 130
    partial = journal.journal_path(out)
    assert partial.is_file() and _leaks(partial.read_text(), seeds) == []
    assert any(c in partial.read_text() for c in commits), "the finished career's row names its commitment"
    monkeypatch.setattr(journal.SweepJournal, "append", real_append)
    assert pibench_main(argv) == 0
    printed = capsys.readouterr()
    assert "1 finished career(s) read back" in printed.err
    assert _leaks(printed.out + printed.err + out.read_text(), seeds) == []
    assert [r["seed_commitment"] for r in json.loads(out.read_text())["rows"]] == commits


def test_the_report_pairs_sealed_policy_and_agent_careers_by_commitment(tmp_path, capsys):
    """Policy careers of `pibench run --seeds @FILE --save-runs` and agent careers of the same
    seal pair by commitment in `pibench report --seal FILE`: both re-simulated (valid), Δ over
    2 pairs, no "no run folder" note, and `run --json` rows of the same careers read as the
    same careers (counted once). Without --seal they are unverified, never shown by seed.
    No output names a seed. Before: the policy careers were keyed by seed, 0 pairs, and a
    "no run folder for seed sealed:..." note for each."""
    from tests.evidence.test_report_evidence import _runs

    seal, rows, _ = _seal(tmp_path, 2, capsys)
    seeds, commits = [int(r["seed"]) for r in rows], [r["commitment"] for r in rows]
    runs, js = tmp_path / "runs", tmp_path / "r.json"
    argv = ["run", "baseline", "--scenario", "short-12", "--seeds", f"@{seal}"]
    assert pibench_main([*argv, "--save-runs", str(runs), "--json", str(js)]) == 0
    _runs(runs, "m", seeds, commitments=commits)
    capsys.readouterr()
    rep_json, html = tmp_path / "rep.json", tmp_path / "rep.html"
    report = ["report", str(runs), str(js), "--seal", str(seal), "--reference", "baseline"]
    assert pibench_main([*report, "--json", str(rep_json), "--html", str(html)]) == 0
    printed = capsys.readouterr()
    assert _leaks(printed.out + printed.err + rep_json.read_text() + html.read_text(), seeds) == []
    assert "no run folder" not in printed.err + printed.out
    rep = json.loads(rep_json.read_text())
    keys = {f"sealed:{c[:12]}" for c in commits}
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert set(board["baseline"]["seeds"]) == keys == set(board["m"]["seeds"])
    assert board["baseline"]["n"] == 2 and board["baseline"]["absent_seeds"] == []
    assert board["m"]["vs_reference"]["n"] == 2
    assert (
        sorted((c["label"], c["status"]) for c in rep["careers"]) == [("baseline", "valid")] * 2 + [("m", "valid")] * 2
    )
    assert pibench_main(["report", str(runs), str(js), "--json", str(rep_json)]) == 0
    blind = json.loads(rep_json.read_text())
    assert {(c["key"], c["status"]) for c in blind["careers"]} == {(k, "unverified") for k in keys}
    assert all(c["seed"] is None for c in blind["careers"])
