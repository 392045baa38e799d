"""`pibench report`: statistics, census rules, and the whole command over agent run
directories and `pibench run --json` output (issue 11)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.harness.backends import Completion
from pibench_tui.harness.loop import run_careers
from pibench_tui.report.analysis import archetype
from pibench_tui.report.load import Career
from pibench_tui.report.stats import bootstrap_mean_ci, spearman, summary, variance_shares
from tests.harness.conftest import settings_for


def _career(**kw) -> Career:
    base = dict(
        label="m",
        kind="agent",
        scenario="s",
        seed=1,
        source="x",
        impact=100.0,
        earned=50.0,
        projection=50.0,
        collapsed=False,
        collapse_month=None,
        months=60,
        months_played=60,
        publications=5,
        grants=1,
        hires=4,
        quits=0,
        valid=True,  # as re-simulated by the report (a Career without a verdict is unverified)
    )
    base.update(kw)
    return Career(**base)


def test_census_rules_in_order():
    """Collapse wins over everything; then ≤ 2 hires or papers; then Impact ≥ 800; then
    ≥ 8 hires; the rest is steady."""
    assert archetype(_career(collapsed=True, impact=900, hires=10)) == "bankrupt"
    assert archetype(_career(hires=2, impact=900)) == "never built"
    assert archetype(_career(publications=1)) == "never built"
    assert archetype(_career(impact=800, hires=9)) == "boom rider"
    assert archetype(_career(impact=799.9, hires=8)) == "overbuilt churn"
    assert archetype(_career(impact=300, hires=7)) == "steady"


def test_statistics():
    """Spearman handles ties and direction; the bootstrap interval brackets the mean and is
    reproducible; variance shares attribute a pure model effect to the model."""
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    vals = [10.0, 20.0, 30.0, 100.0]
    lo, hi = bootstrap_mean_ci(vals)
    assert lo < summary(vals)["mean"] < hi and bootstrap_mean_ci(vals) == (lo, hi)
    assert bootstrap_mean_ci([5.0]) is None
    shares = variance_shares({("a", 1): 10, ("a", 2): 10, ("b", 1): 1000, ("b", 2): 1000})
    assert shares["model"] == pytest.approx(1.0) and shares["seed"] == pytest.approx(0.0)
    assert summary([0.0, 0.0])["geomean"] == 1.0


class _Instant:
    def __init__(self, reply: str, name: str) -> None:
        self.reply, self.name = reply, name

    def describe(self):
        return {"backend": "instant", "model": self.name}

    def complete(self, messages):
        return Completion(text=self.reply, prompt_tokens=1000, completion_tokens=50)


def _agent_runs(out: Path) -> None:
    plans = {
        "idle": "```python\ntime.next_month()\n```",
        "mentor": "```python\nfor e in events.pending():\n    events.respond(e['id'], 'decline')\ntime.next_month()\n```",
    }
    for model, reply in plans.items():
        res = run_careers(
            settings_for("short-12", model=model),
            lambda r=reply, m=model: _Instant(r, m),
            [101, 102],
            out,
            log=lambda _t: None,
        )
        assert all(isinstance(r, dict) for r in res)


def test_report_over_agent_runs_and_run_json(tmp_path):
    """The report reads agent run directories and `pibench run --json` together: a
    leaderboard with a column per seed, tokens and cost, paired differences against the
    reference, the census and legibility; the HTML page is self-contained (images
    embedded, no network); a tampered result is counted invalid."""
    runs = tmp_path / "runs"
    _agent_runs(runs)
    pol = tmp_path / "do-nothing.json"
    assert pibench_main(["run", "do-nothing", "--scenario", "short-12", "--seeds", "101-102", "--json", str(pol)]) == 0
    tampered = runs / "idle" / "short-12-102" / "result.json"
    res = json.loads(tampered.read_text())
    res["impact"]["total"] = 5.0
    tampered.write_text(json.dumps(res))
    html_out, json_out = tmp_path / "r.html", tmp_path / "r.json"
    rc = pibench_main(
        [
            "report",
            str(runs),
            str(pol),
            "--html",
            str(html_out),
            "--json",
            str(json_out),
            "--reference",
            "do-nothing",
            "--price",
            "idle=1,2",
        ]
    )
    assert rc == 0
    rep = json.loads(json_out.read_text())
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert set(board) == {"idle", "mentor", "do-nothing"}
    assert set(board["idle"]["seeds"]) == {"101", "102"}
    assert board["idle"]["tokens_per_career"] == 12 * 1050
    assert board["idle"]["cost_usd"] == pytest.approx(2 * 12 * (1000 * 1 + 50 * 2) / 1e6)
    assert board["idle"]["invalid"] == 1 and "re-simulated Impact" in board["idle"]["invalid_reasons"][0]
    assert board["mentor"]["vs_reference"]["n"] == 2 and board["do-nothing"]["vs_reference"] is None
    assert rep["census"]["table"]["do-nothing"]["never built"] == 2
    curve = rep["legibility"]["short-12"]["curve"]
    assert [p["month"] for p in curve] == list(range(1, 13))
    careers = [c for c in rep["careers"] if c["label"] == "do-nothing"]
    assert len(careers[0]["budget_by_month"]) == 12  # run --json rows are re-played for trajectories
    page = html_out.read_text()
    assert page.count("data:image/png;base64,") >= 3
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", page)
    assert "<th>seed 101</th>" in page


def test_leaderboard_shows_llm_calls_that_failed(tmp_path):
    """Careers whose LLM calls failed after their retries (months advanced without the model)
    are counted in the leaderboard and shown in their own column, so an endpoint that never
    answered cannot pass for a model that scored 0."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import leaderboard_rows

    careers = [
        _career(label="down", seed=1, impact=0.0, failed_calls=8),
        _career(label="down", seed=2, impact=0.0, failed_calls=0),
        _career(label="fine", seed=1, failed_calls=0),
        _career(label="fine", seed=2, failed_calls=0),
        _career(label="pol", kind="policy", seed=1),
    ]
    rep = build_report(careers, reference="fine")
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["down"]["llm_failed_runs"] == 1 and board["down"]["llm_failed_calls"] == 8
    assert board["fine"]["llm_failed_calls"] == 0
    head, rows = leaderboard_rows(rep)
    col = head.index("LLM failed calls")
    cells = {row[0]: row[col] for row in rows}
    assert cells == {"down": "1 run(s): 8", "fine": "0", "pol": "—"}


def test_terminal_report_prints_labels_as_plain_text():
    """Labels, models and scenario names come from run directories: in the terminal tables they
    are text, never rich markup (``[/x]`` crashed the report, ``[bold]`` restyled it)."""
    import io

    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import render_terminal

    careers = [
        _career(label="exp[/1]", seed=1, scenario="s[bold]"),
        _career(label="exp[/1]", seed=2, scenario="s[bold]"),
        _career(label="ref[red]", seed=1, scenario="s[bold]"),
    ]
    out = io.StringIO()
    render_terminal(build_report(careers, reference="ref[red]"), Console(file=out, width=300))
    text = out.getvalue()
    assert "exp[/1]" in text and "ref[red]" in text and "reference ref[red]" in text


def test_report_refuses_paths_without_runs(tmp_path, capsys):
    """A folder with no result.json and an unknown reference label are clear errors."""
    assert pibench_main(["report", str(tmp_path)]) == 1
    assert "no completed run" in capsys.readouterr().err
    assert pibench_main(["report", str(tmp_path / "missing")]) == 1


def test_report_pairs_default_with_standard_and_counts_a_seed_once(tmp_path, capsys):
    """`pibench run` without --scenario names the standard scenario "default" and `pibench
    agent` names it "standard": the report groups both as "standard" so differences pair by
    seed; the same career given twice (run --json and its --save-runs folder) counts once;
    the terminal tables are not folded into 80 columns when stdout is not a terminal."""
    pol = tmp_path / "nothing.json"
    saved = tmp_path / "saved"
    assert pibench_main(["run", "do-nothing", "--seeds", "101", "--json", str(pol), "--save-runs", str(saved)]) == 0
    capsys.readouterr()
    out = tmp_path / "r.json"
    assert pibench_main(["report", str(pol), str(saved), "--no-simulate", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "counted once" in captured.err
    assert max(len(line) for line in captured.out.splitlines()) > 80  # 200 columns, not folded to 80
    rep = json.loads(out.read_text())
    (row,) = rep["leaderboard"]
    assert row["label"] == "do-nothing" and row["scenario"] == "standard" and len(rep["careers"]) == 1


def test_report_damaged_result_and_unwritable_outputs_are_clear_errors(tmp_path, capsys):
    """A run directory whose result.json is not JSON is an invalid career named with its
    reason (the leaderboard is still printed: one damaged folder never hides the others), and
    --json/--html paths in a folder that does not exist give one clear error line and exit
    status 1 (no traceback)."""
    bad = tmp_path / "runs" / "m" / "short-12-101"
    bad.mkdir(parents=True)
    (bad / "result.json").write_text("{garbage")
    assert pibench_main(["report", str(tmp_path / "runs")]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines where the path ends
    assert "result.json: not valid JSON" in out and "invalid: 0" in out
    pol = tmp_path / "nothing.json"
    assert pibench_main(["run", "do-nothing", "--scenario", "short-12", "--seeds", "101", "--json", str(pol)]) == 0
    capsys.readouterr()
    for flag in ("--json", "--html"):
        target = tmp_path / "missing" / "out"
        assert pibench_main(["report", str(pol), "--no-simulate", flag, str(target)]) == 1
        assert f"cannot write {flag}" in capsys.readouterr().err


def test_an_invalid_career_counts_as_impact_zero_in_every_aggregate():
    """A career that does not replay to its recorded result counts as Impact 0 in its seed's
    column, the mean, the median and the paired difference (dropping it would let a
    tampered run remove a bad seed), and the terminal leaderboard marks that cell."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import Career
    from pibench_tui.report.render import leaderboard_rows

    def career(label: str, seed: int, impact: float, valid: bool | None = True) -> Career:
        return Career(
            label=label, kind="policy", scenario="short-12", seed=seed, source=f"{label}-{seed}",
            impact=impact, earned=impact, projection=0.0, collapsed=False, collapse_month=None,
            months=12, months_played=12, publications=0, grants=0, hires=0, quits=0, valid=valid,
            invalid_reason=None if valid else "the state digest differs",
        )  # fmt: skip

    careers = [career("a", 1, 10.0), career("a", 2, 90.0, valid=False), career("b", 1, 4.0), career("b", 2, 6.0)]
    rep = build_report(careers, reference="b")
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["a"]["seeds"] == {"1": 10.0, "2": 0.0} and board["a"]["invalid_seeds"] == ["2"]
    assert board["a"]["mean"] == 5.0 and board["a"]["median"] == 5.0
    assert board["a"]["vs_reference"]["mean"] == ((10.0 - 4.0) + (0.0 - 6.0)) / 2
    head, rows = leaderboard_rows(rep)
    row = next(r for r in rows if r[0] == "a")
    assert row[head.index("seed 2")] == "invalid: 0" and row[head.index("seed 1")] == "10.0"


@pytest.mark.parametrize("price", ["m=nan,1", "m=1,inf", "m=-1,2", "=1,2", "m=1", "m"])
def test_report_refuses_a_price_that_is_not_two_finite_non_negative_numbers(price, capsys):
    """--price LABEL=IN,OUT takes two finite, non-negative USD figures: NaN (which blanked the
    cost column) and infinity (which showed a cost of 'inf') are usage errors like -1."""
    assert pibench_main(["report", "runs", "--price", price]) == 2
    assert "argument --price" in capsys.readouterr().err


def test_a_label_whose_careers_differ_in_settings_is_split_into_one_row_per_setting(tmp_path, capsys):
    """Careers of one label played at two temperatures (one run directory tree, seeds 101 at
    0.4 and 102 at 0.0) are not averaged as one model: the report shows one row per settings
    hash and says why, in the terminal and in report.json."""
    out = tmp_path / "runs"
    idle = "```python\ntime.next_month()\n```"
    for seed, temp in ((101, 0.4), (102, 0.0)):
        res = run_careers(
            settings_for("short-12", model="m", temperature=temp),
            lambda: _Instant(idle, "m"),
            [seed],
            out,
            log=lambda _t: None,
        )
        assert isinstance(res[0], dict)
    assert pibench_main(["report", str(out), "--json", str(tmp_path / "r.json")]) == 0
    text = capsys.readouterr().out
    report = json.loads((tmp_path / "r.json").read_text())
    rows = [r["label"] for r in report["leaderboard"]]
    assert len(rows) == 2 and all(r.startswith("m · settings ") for r in rows)
    assert all(r["n"] == 1 for r in report["leaderboard"])
    assert list(report["split_labels"]) == ["m"] and len(report["split_labels"]["m"]) == 2
    assert "holds careers of 2 different harness settings" in text
