"""`pibench report` and `pibench replay` judge a run folder by one rule
(pibench_tui.harness.runcheck; QA findings F4, F13 on issue 25): a result.json of odd types is
an invalid career named for its field, never a crash that leaves the folders after it
unchecked; a copied run folder is invalid in both (F13); a linked run folder and a FIFO are
listed invalid in both (F8, F9); a folder that is not a run makes no career (F10). Mounted through the real ``pibench``
command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.headless.conftest import run_pibench


def _policy_runs(out: Path, seeds: str = "101,102") -> Path:
    """Oracle careers on short-12 saved as run folders (``out/oracle/short-12-<seed>``)."""
    rc = run_pibench(["run", "oracle", "--scenario", "short-12", "--seeds", seeds, "--save-runs", str(out)])
    assert rc.returncode == 0, rc.stderr
    return out / "oracle"


def _edit(run: Path, **changes) -> None:
    res = json.loads((run / "result.json").read_text())
    res.update(changes)
    (run / "result.json").write_text(json.dumps(res))


def _report(paths: list[Path], tmp_path: Path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / "report.json"
    rep = run_pibench(["report", *map(str, paths), "--json", str(out), *extra], home=tmp_path / "home")
    assert rep.returncode == 0 and "Traceback" not in rep.stderr, rep.stderr
    return json.loads(out.read_text()), rep.stdout + rep.stderr


def test_replay_names_a_result_of_odd_types_and_checks_the_folders_after_it(tmp_path):
    """A result.json with ``"impact": "abc"`` (seed 101), one with a string seed (102) and one
    with a NaN Impact (103): `pibench replay` prints each INVALID naming the field, still
    checks seed 104 (valid), exits 1 and never shows a traceback (before: AttributeError on
    101 and nothing after it; the string seed replayed as valid); `pibench report` gives the
    same reasons."""
    pol = _policy_runs(tmp_path / "runs", "101-104")
    _edit(pol / "short-12-101", impact="abc")
    _edit(pol / "short-12-102", seed="102")
    text = (pol / "short-12-103" / "result.json").read_text()
    (pol / "short-12-103" / "result.json").write_text(text.replace('"total":', '"total": NaN, "was":', 1))
    rp = run_pibench(["replay", str(tmp_path / "runs")], home=tmp_path / "home")
    assert rp.returncode == 1 and "Traceback" not in rp.stderr, rp.stdout + rp.stderr
    lines = {line.split()[1].rsplit("/", 1)[-1].rstrip(":"): line for line in rp.stdout.splitlines()}
    assert lines["short-12-101"].startswith("INVALID") and "impact 'abc'" in lines["short-12-101"], rp.stdout
    assert lines["short-12-102"].startswith("INVALID") and "seed '102' is not an integer" in lines["short-12-102"]
    assert lines["short-12-103"].startswith("INVALID") and "nan" in lines["short-12-103"], rp.stdout
    assert lines["short-12-104"].startswith("valid"), rp.stdout
    rep, _ = _report([tmp_path / "runs"], tmp_path)
    reasons = {c["key"]: (c["status"], c["invalid_reason"]) for c in rep["careers"]}
    assert reasons["101"][0] == "invalid" and "impact 'abc'" in reasons["101"][1]
    assert reasons["102"][0] == "invalid" and "seed '102' is not an integer" in reasons["102"][1]
    assert reasons["103"][0] == "invalid" and "nan" in reasons["103"][1]
    assert reasons["104"] == ("valid", None)


def test_replay_and_report_both_call_a_copied_run_folder_invalid(tmp_path):
    """Seed 101's folder copied over seed 102's, and again to a folder ``short-12-102x``:
    `pibench replay` prints both INVALID as copied run folders (before: "valid" for each,
    while the report called them copies) and `pibench report` says the same."""
    pol = _policy_runs(tmp_path / "runs")
    shutil.rmtree(pol / "short-12-102")
    shutil.copytree(pol / "short-12-101", pol / "short-12-102")
    shutil.copytree(pol / "short-12-101", pol / "short-12-102x")
    for name in ("short-12-102", "short-12-102x"):
        rp = run_pibench(["replay", str(pol / name)], home=tmp_path / "home")
        assert rp.returncode == 1, rp.stdout + rp.stderr
        assert rp.stdout.startswith("INVALID") and "a copied run folder" in rp.stdout, rp.stdout
    rep, _ = _report([tmp_path / "runs"], tmp_path)
    copies = [c for c in rep["careers"] if c["source"].endswith(("short-12-102", "short-12-102x"))]
    assert len(copies) == 2 and all("a copied run folder" in (c["invalid_reason"] or "") for c in copies), copies


def test_a_linked_run_folder_is_listed_invalid_by_report_and_replay(tmp_path):
    """Seed 102's run folder replaced by a symbolic link to it (moved elsewhere): `pibench
    report` lists it as an invalid career of its seed ("a symbolic link, not followed"), and
    `pibench replay` prints it INVALID and exits 1 (before: the report showed n=1 and "no run
    folder for seed 102 ... deleted or never run"; replay skipped it without a word)."""
    pol = _policy_runs(tmp_path / "runs")
    shutil.move(pol / "short-12-102", tmp_path / "elsewhere")
    (pol / "short-12-102").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    rep, text = _report([tmp_path / "runs"], tmp_path)
    careers = {c["key"]: c for c in rep["careers"]}
    assert careers["102"]["status"] == "invalid", careers
    assert "a symbolic link, not followed" in careers["102"]["invalid_reason"]
    assert rep["leaderboard"][0]["n"] == 2 and "no run folder" not in text
    rp = run_pibench(["replay", str(tmp_path / "runs")], home=tmp_path / "home")
    assert rp.returncode == 1, rp.stdout + rp.stderr
    assert "INVALID" in rp.stdout and "short-12-102: " in rp.stdout and "symbolic link, not followed" in rp.stdout
    assert "symbolic link" not in rp.stdout.split("short-12-101")[1].split("\n")[0]


def test_a_run_file_that_is_a_fifo_is_not_a_regular_file(tmp_path):
    """A FIFO in place of seed 102's result.json and of seed 103's actions.jsonl: `pibench
    report` lists both invalid, "not a regular file" (before: 102 was "crashed: the run
    directory has neither result.json nor checkpoint.json" and 103 hung the report reading
    the FIFO), and `pibench replay` says the same of each without waiting for a writer."""
    pol = _policy_runs(tmp_path / "runs", "101-103")
    (pol / "short-12-102" / "result.json").unlink()
    os.mkfifo(pol / "short-12-102" / "result.json")
    (pol / "short-12-103" / "actions.jsonl").unlink()
    os.mkfifo(pol / "short-12-103" / "actions.jsonl")
    out = tmp_path / "report.json"
    rep = run_pibench(["report", str(tmp_path / "runs"), "--json", str(out)], home=tmp_path / "home", timeout=60)
    assert rep.returncode == 0, rep.stderr
    careers = {c["key"]: c for c in json.loads(out.read_text())["careers"]}
    for key in ("102", "103"):
        assert careers[key]["status"] == "invalid", careers[key]
        assert "is not a regular file" in careers[key]["invalid_reason"], careers[key]
    rp = run_pibench(["replay", str(tmp_path / "runs")], home=tmp_path / "home", timeout=60)
    assert rp.returncode == 1, rp.stdout + rp.stderr
    lines = {line.split()[1].rsplit("/", 1)[-1].rstrip(":"): line for line in rp.stdout.splitlines()}
    assert "result.json is not a regular file" in lines["short-12-102"], rp.stdout
    assert "actions.jsonl is not a regular file" in lines["short-12-103"], rp.stdout
    assert lines["short-12-101"].startswith("valid"), rp.stdout


def test_a_folder_that_is_not_a_run_makes_no_row_scenario_or_label_suffix(tmp_path):
    """``oracle/notarun/result.json`` = ``{"hello": 1}`` and a ``notes`` folder holding only an
    actions.jsonl, beside two oracle careers: the report has one scenario and one row named
    ``oracle`` (before: a row for a scenario "notarun", collapse 100%, and every label
    suffixed " · short-12"), and lists both folders as not runs (JSON ``foreign``, the
    terminal, the HTML page)."""
    pol = _policy_runs(tmp_path / "runs")
    (pol / "notarun").mkdir()
    (pol / "notarun" / "result.json").write_text('{"hello": 1}')
    (tmp_path / "runs" / "notes").mkdir()
    (tmp_path / "runs" / "notes" / "actions.jsonl").write_text("[]\n")
    html_file = tmp_path / "r.html"
    rep, text = _report([tmp_path / "runs"], tmp_path, "--html", str(html_file))
    assert rep["scenarios"] == ["short-12"] and [r["label"] for r in rep["leaderboard"]] == ["oracle"]
    assert sorted(c["key"] for c in rep["careers"]) == ["101", "102"]
    foreign = {Path(f["source"]).name: f["reason"] for f in rep["foreign"]}
    assert set(foreign) == {"notarun", "notes"} and all("not a run folder" in r for r in foreign.values())
    assert "not a run" in text and "notarun" in text
    assert "Folders that are not runs" in html_file.read_text()


def test_an_emptied_run_folder_is_an_invalid_career_not_a_missing_seed(tmp_path):
    """Beside do-nothing careers of seeds 101-105, oracle's folder of seed 103 emptied, 104's
    holding only a notes file and 105's a garbage result.json: `pibench report` lists all three
    as invalid careers of their seeds, each with its reason (103 "it is empty", 104 "it holds
    only notes.txt"), counts them in the invalid column and none as missing, and says no "no
    run folder for seed" (before: 103 and 104 were not found, counted as missing seeds "deleted
    or never run"); `pibench replay` prints each INVALID and exits 1 (before: 103 and 104
    were skipped without a word)."""
    pol = _policy_runs(tmp_path / "runs", "101-105")
    rc = run_pibench(["run", "do-nothing", "--scenario", "short-12", "--seeds", "101-105", "--save-runs",
                      str(tmp_path / "runs")])  # fmt: skip
    assert rc.returncode == 0, rc.stderr
    for name in ("short-12-103", "short-12-104"):
        shutil.rmtree(pol / name)
        (pol / name).mkdir()
    (pol / "short-12-104" / "notes.txt").write_text("kept for later\n")
    (pol / "short-12-105" / "result.json").write_text("garbage")
    rep, text = _report([tmp_path / "runs"], tmp_path)
    careers = {(c["label"], c["key"]): c for c in rep["careers"]}
    for seed, why in (("103", "it is empty"), ("104", "it holds only notes.txt"), ("105", "result.json")):
        c = careers[("oracle", seed)]
        assert c["status"] == "invalid" and why in c["invalid_reason"], c
    assert "named as a run folder but holds none of a run's files" in careers[("oracle", "103")]["invalid_reason"]
    row = next(r for r in rep["leaderboard"] if r["label"] == "oracle")
    assert (row["n"], row["invalid"], row["missing"]) == (5, 3, 0), row
    assert "no run folder for seed" not in text, text
    rp = run_pibench(["replay", str(tmp_path / "runs")], home=tmp_path / "home")
    assert rp.returncode == 1, rp.stdout + rp.stderr
    lines = {"/".join(line.split()[1].rstrip(":").split("/")[-2:]): line for line in rp.stdout.splitlines()}
    assert all(lines[f"oracle/short-12-{s}"].startswith("INVALID") for s in (103, 104, 105)), rp.stdout
    assert "holds none of a run's files" in lines["oracle/short-12-104"], rp.stdout
    assert lines["do-nothing/short-12-103"].startswith("valid"), rp.stdout


def test_every_entry_named_as_a_run_or_left_without_run_files_is_listed_with_its_reason(tmp_path):
    """Beside oracle's genuine careers of seeds 101-102, under its label: a plain file
    `short-12-104`, a FIFO `short-12-107`, a link `short-12-105`, a folder holding only an
    action log `short-12-108`, empty folders `short-12-abc` and `short-12-103x`. `pibench
    report` lists every one with its reason: the run-named ones as careers of oracle's row
    (no "oracle (agent run)" row, no "played only with other settings" note for seeds nobody
    played), the others in `--json`'s `foreign` and the terminal's "not a run" lines (before:
    the file, the FIFO and both odd folders were listed nowhere, and the link and the partial
    folder made an "oracle (agent run)" row at 100 % collapse)."""
    runs = tmp_path / "runs"
    pol = _policy_runs(runs)
    (pol / "short-12-104").write_text("not a folder\n")
    os.mkfifo(pol / "short-12-107")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, pol / "short-12-105")
    (pol / "short-12-108").mkdir()
    shutil.copy(pol / "short-12-101" / "actions.jsonl", pol / "short-12-108" / "actions.jsonl")
    (pol / "short-12-abc").mkdir()
    (pol / "short-12-103x").mkdir()
    rep, text = _report([runs], tmp_path)
    careers = {c["key"]: c for c in rep["careers"]}
    assert {c["row"] for c in rep["careers"]} == {"oracle"}, [c["row"] for c in rep["careers"]]
    assert careers["104"]["status"] == "invalid" and "is a file, not a folder" in careers["104"]["invalid_reason"]
    assert careers["107"]["status"] == "invalid" and "is a FIFO, not a folder" in careers["107"]["invalid_reason"]
    assert careers["105"]["status"] == "invalid" and "symbolic link" in careers["105"]["invalid_reason"]
    assert careers["108"]["status"] == "crashed"
    foreign = {Path(f["source"]).name: f["reason"] for f in rep["foreign"]}
    assert set(foreign) == {"short-12-abc", "short-12-103x"}, foreign
    assert all("holds none of a run's files" in why for why in foreign.values()), foreign
    flat = " ".join(text.split())
    assert "played only with other settings" not in flat and "(agent run)" not in flat, text
    for name in ("short-12-104", "short-12-107", "short-12-abc", "short-12-103x"):
        assert name in flat, name
