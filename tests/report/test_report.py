"""`pibench report`: statistics, census rules, and the whole command over agent run
directories and `pibench run --json` output (issue 11)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
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
    assert "<th>$/career</th>" in page and "<th>seed 101</th>" not in page  # seeds are rows of the careers table


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
    col = head.index("failed\ncalls")
    cells = {row[0]: row[col] for row in rows}
    assert cells == {"down": "8 (1)", "fine": "0", "pol": "—"}


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
    """A folder with no result.json, a missing path (a usage error, exit 2) and a file that is
    not JSON are clear errors, each naming the path once."""
    assert pibench_main(["report", str(tmp_path)]) == 1
    assert "no completed run" in capsys.readouterr().err
    assert pibench_main(["report", str(tmp_path / "missing")]) == 2
    junk = tmp_path / "junk.json"
    junk.write_text("{{{")
    assert pibench_main(["report", str(junk)]) == 1
    err = capsys.readouterr().err
    assert "not valid JSON" in err and err.count(str(junk)) == 1  # the path named once (QA9)


def test_report_pairs_default_with_standard_and_counts_a_seed_once(tmp_path, capsys):
    """Runs written before `pibench run` named the standard scenario "standard" call it
    "default" (`pibench agent` always said "standard"): the report groups both as "standard" so
    differences pair by seed; the same career given twice (run --json and its --save-runs folder) counts once;
    the terminal tables are not folded into 80 columns when stdout is not a terminal."""
    pol = tmp_path / "nothing.json"
    saved = tmp_path / "saved"
    assert pibench_main(["run", "do-nothing", "--seeds", "101", "--json", str(pol), "--save-runs", str(saved)]) == 0
    capsys.readouterr()
    older = json.loads(pol.read_text())
    assert older["scenario"] == "standard"
    pol.write_text(json.dumps(older | {"scenario": "default"}))  # as an older `pibench run` wrote it
    out = tmp_path / "r.json"
    assert pibench_main(["report", str(pol), str(saved), "--no-simulate", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "counted once" in captured.err
    assert max(len(line) for line in captured.out.splitlines()) > 80  # 100 columns, not folded to 80
    rep = json.loads(out.read_text())
    (row,) = rep["leaderboard"]
    assert row["label"] == "do-nothing" and row["scenario"] == "standard" and len(rep["careers"]) == 1


def test_report_damaged_result_and_unwritable_outputs_are_clear_errors(tmp_path, capsys):
    """A run directory whose result.json is not JSON is an invalid career named with its
    reason (the leaderboard is still printed: one damaged folder never hides the others), and
    --json/--html paths in a folder that does not exist give one clear error line and exit
    status 2 before any report is printed (no traceback)."""
    bad = tmp_path / "runs" / "m" / "short-12-101"
    bad.mkdir(parents=True)
    (bad / "result.json").write_text("{garbage")
    assert pibench_main(["report", str(tmp_path / "runs")]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines where the path ends
    flat = "".join(out.split())  # at 100 columns the console may also break a line inside the path
    assert "result.json:notvalidJSON" in flat and "invalid: 0" in out
    pol = tmp_path / "nothing.json"
    assert pibench_main(["run", "do-nothing", "--scenario", "short-12", "--seeds", "101", "--json", str(pol)]) == 0
    capsys.readouterr()
    for flag in ("--json", "--html"):
        target = tmp_path / "missing" / "out"
        assert pibench_main(["report", str(pol), "--no-simulate", flag, str(target)]) == 2
        said = capsys.readouterr()
        assert f"{flag} {target}: there is no folder {target.parent}" in said.err and not said.out


def test_an_invalid_career_counts_as_impact_zero_in_every_aggregate():
    """A career that does not replay to its recorded result counts as Impact 0 in its seed's
    column, the mean, the median and the paired difference (dropping it would let a
    tampered run remove a bad seed), and as collapsed in the collapse column (its recorded
    ``collapsed: false`` is not believed either); the terminal leaderboard marks that cell."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import Career
    from pibench_tui.report.render import career_rows

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
    assert board["a"]["collapses"] == 1 and board["a"]["collapse_share"] == 0.5 and board["b"]["collapses"] == 0
    assert board["a"]["vs_reference"]["mean"] == ((10.0 - 4.0) + (0.0 - 6.0)) / 2
    head, rows = career_rows(rep)
    cells = {(r[0], r[head.index("seed")]): r[head.index("Impact")] for r in rows}
    assert cells[("a", "2")] == "invalid: 0" and cells[("a", "1")] == "10.0"


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


def _grid(labels: dict[str, float], seeds: int, **kw) -> list[Career]:
    """Careers of each label on seeds 1..seeds: Impact = the label's base + a seed effect."""
    return [
        _career(label=label, seed=s, impact=base + (s * 37 % 23) + (s % 3) * (base / 10), **kw)
        for label, base in labels.items()
        for s in range(1, seeds + 1)
    ]


def test_leaderboard_has_fixed_columns_and_fits_100_terminal_columns_at_30_seeds():
    """30 seeds × 3 labels: the leaderboard is one row per label with the same columns as at
    2 seeds (mean, median, CI, collapse %, cost and tokens per career, flags, missing; no
    column per seed), every seed's value is a row of the careers table, and printed to a
    pipe no line of the leaderboard, the pairs or the careers is wider than 100 columns and
    no label row wraps."""
    import io

    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import career_rows, leaderboard_rows, render_terminal

    labels = {"gpt-lab-large": 300.0, "gpt-lab-small": 200.0, "baseline-ish": 100.0}
    rep30 = build_report(_grid(labels, 30, tokens=2_000_000, prompt_tokens=1_900_000, completion_tokens=100_000))
    rep2 = build_report(_grid(labels, 2))
    head30, rows30 = leaderboard_rows(rep30)
    assert head30 == leaderboard_rows(rep2)[0] and len(rows30) == 3
    for name in ("mean", "median", "95% CI", "collapse", "$\n/career", "tokens\n/career", "flags", "missing"):
        assert name in head30
    assert not any(h.startswith("seed") for h in head30)
    chead, crows = career_rows(rep30)
    assert len(crows) == 90 and {r[chead.index("seed")] for r in crows} == {str(s) for s in range(1, 31)}
    out = io.StringIO()
    render_terminal(rep30, Console(file=out, width=100))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 100
    for label in labels:  # one line per label row: the label and its tokens on the same line
        assert any(line.lstrip().startswith(label) and "2.00M" in line for line in lines)


def test_an_interval_of_fewer_than_ten_careers_is_shown_as_the_range():
    """With 3 careers a label's interval is the min-max range, marked † and explained under
    the leaderboard (a bootstrap of 3 values was the range called "95% CI"); with 10 it is
    the seed-bootstrap 95 % interval, inside the range and without the mark."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import leaderboard_notes, leaderboard_rows

    rep = build_report(_grid({"few": 100.0}, 3) + _grid({"many": 100.0}, 10))
    board = {r["label"]: r for r in rep["leaderboard"]}
    few, many = board["few"], board["many"]
    assert few["interval"] == {"kind": "range", "low": few["min"], "high": few["max"]}
    assert many["interval"]["kind"] == "bootstrap"
    assert many["min"] < many["interval"]["low"] < many["mean"] < many["interval"]["high"] < many["max"]
    head, rows = leaderboard_rows(rep)
    cells = {r[0]: r[head.index("95% CI")] for r in rows}
    assert cells["few"].endswith("†") and not cells["many"].endswith("†")
    notes = leaderboard_notes(rep)
    assert any(n.startswith("few: no run folder for seeds 4, 5") for n in notes)  # few played 3 of 10
    (note,) = [n for n in notes if "no run folder" not in n and "log unchecked" not in n]
    assert note.startswith("† fewer than 10 careers") and "not a confidence interval" in note


def test_pairs_state_the_detectable_difference_and_the_careers_needed():
    """Per pair of labels on shared seeds: the mean paired difference; the smallest difference
    these n pairs could detect at level 0.05 with power 0.8, (t(.975, n-1) + t(.8, n-1)) ·
    sd / √n (t quantiles 2.0452 and 0.8542 at 29 degrees of freedom); the careers needed to
    resolve the observed difference (the smallest n whose detectable difference is ≤ it);
    resolved only when a bootstrap interval of ≥ 10 pairs excludes 0."""
    import math
    import statistics

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.stats import careers_needed, detectable_difference, t_quantile

    assert t_quantile(0.975, 29) == pytest.approx(2.0452, abs=2e-4)
    assert t_quantile(0.8, 29) == pytest.approx(0.8542, abs=2e-4)
    careers = _grid({"a": 100.0}, 30) + [
        _career(label="b", seed=s, impact=100.0 + (s * 37 % 23) + (s % 3) * 10.0 - 3.0 + (s % 5 - 2) * 8.0)
        for s in range(1, 31)
    ]
    rep = build_report(careers)
    (pair,) = rep["pairs"]
    diffs = [3.0 - (s % 5 - 2) * 8.0 for s in range(1, 31)]
    sd = statistics.stdev(diffs)
    assert (pair["a"], pair["b"], pair["n"]) == ("a", "b", 30)
    assert pair["mean"] == pytest.approx(statistics.fmean(diffs))
    assert pair["detectable"] == pytest.approx((2.0452 + 0.8542) * sd / math.sqrt(30), rel=1e-3)
    needed = pair["needed"]
    assert detectable_difference(sd, needed) <= abs(pair["mean"]) < detectable_difference(sd, needed - 1)
    assert needed > 30 and not pair["resolved"]  # 3 ± 11.5 over 30 pairs: not resolved
    assert careers_needed(0.0, sd) is None and careers_needed(5.0, 0.0) == 3
    few = build_report(_grid({"a": 100.0, "b": 10.0}, 3))["pairs"][0]
    assert few["interval"]["kind"] == "range" and not few["resolved"]  # 3 pairs never "resolve"


def test_a_pair_is_resolved_only_when_the_bootstrap_and_the_paired_t_interval_both_exclude_0():
    """QA7 F12: one outlier pair (+249.6 among small differences) made the bootstrap interval
    exclude 0 ("resolved yes") while the paired-t interval held 0 and the careers needed said
    more than were played. Such a pair is not resolved; a steady difference still is."""
    from pibench_tui.report.analysis import build_report

    noise = [(s * 37 % 23 - 11) + 5.0 for s in range(1, 31)]
    outlier = [*noise[:-1], 249.6]
    a = [_career(label="a", seed=s, impact=100.0) for s in range(1, 31)]
    pair = build_report(
        a + [_career(label="b", seed=s, impact=100.0 - d) for s, d in zip(range(1, 31), outlier, strict=True)]
    )["pairs"][0]
    assert pair["interval"]["low"] > 0, "the bootstrap interval alone excludes 0"
    assert abs(pair["mean"]) <= pair["t_half_width"] and not pair["resolved"]
    steady = build_report(
        a + [_career(label="b", seed=s, impact=95.0 - d) for s, d in zip(range(1, 31), noise, strict=True)]
    )["pairs"][0]
    assert steady["resolved"]


def test_cost_per_career_from_prices_or_recorded_costs():
    """The leaderboard's cost is per career: with --price from the tokens, else from the
    tokens at the price each career's result.json recorded (when each has one; the recorded
    cost itself is never read); each career's own cost is in the careers table."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import career_rows, leaderboard_rows

    careers = [
        _career(label="priced", seed=s, tokens=3_000_000, prompt_tokens=2_000_000, completion_tokens=1_000_000)
        for s in (1, 2)
    ] + [
        _career(label="recorded", seed=s, tokens=s * 1_000_000, prompt_tokens=s * 1_000_000, price=(1.0, 2.0, None))
        for s in (1, 2)
    ]
    rep = build_report(careers, prices={"priced": (1.0, 2.0)})
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["priced"]["cost_per_career"] == pytest.approx(4.0) and board["priced"]["cost_usd"] == 8.0
    assert board["recorded"]["cost_per_career"] == pytest.approx(1.5)
    head, rows = leaderboard_rows(rep)
    assert {r[0]: r[head.index("$\n/career")] for r in rows} == {"priced": "$4.00", "recorded": "$1.50"}
    chead, crows = career_rows(rep)
    assert sorted(r[chead.index("$")] for r in crows) == ["$1.00", "$2.00", "$4.00", "$4.00"]


def test_html_report_has_cost_plot_and_trajectories_faceted_per_label(tmp_path):
    """The figures: a cost-against-Impact plot when agent labels have tokens, and the
    trajectories drawn one row of panels per label (three labels on the same worlds no longer
    draw over each other: the figure grows with the labels); the page has the pairs table
    and no table wider than the page (no seed columns)."""
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.figures import all_figures, trajectories
    from pibench_tui.report.render import render_html

    traj = dict(earned_by_month=[float(m) for m in range(12)], budget_by_month=[1e5] * 12)
    one = build_report(_grid({"a": 100.0}, 3, tokens=5000, **traj))
    three = build_report(_grid({"a": 100.0, "b": 50.0, "c": 10.0}, 3, tokens=5000, **traj))
    height = [mpimg.imread(io_png(trajectories(rep))).shape[0] for rep in (one, three)]
    assert height[1] > 2 * height[0]
    figs = all_figures(three)
    assert {"cost", "trajectories", "impact"} <= set(figs)
    page = render_html(three, figs)
    assert "<h2>Differences between labels</h2>" in page and 'alt="Cost against Impact"' in page


def io_png(data: bytes):
    """A PNG's bytes as a file object for matplotlib.image.imread."""
    import io

    return io.BytesIO(data)


def test_cost_plot_keeps_labels_of_similar_cost_inside_the_frame(monkeypatch):
    """Labels whose costs are close (122k and 116k tokens) sit inside the cost axis, not on its
    right edge: autoscale's margin is a share of the points' spread, which put the dearer label's
    point and whisker on the frame (seen in the 30-seed x 3-label report)."""
    from pibench_tui.report import figures

    limits = []

    def keep_limits(fig):
        limits.append(fig.axes[0].get_xlim())
        import matplotlib.pyplot as plt

        plt.close(fig)
        return b""

    monkeypatch.setattr(figures, "_png", keep_limits)
    rows = [
        {
            "label": "m1",
            "kind": "agent",
            "tokens_per_career": 122_000,
            "mean": 45.9,
            "interval": {"low": 28.0, "high": 70.1},
        },
        {"label": "m2", "kind": "agent", "tokens_per_career": 116_000, "mean": 0.0, "interval": None},
    ]
    figures.cost_vs_impact({"leaderboard": rows})
    ((low, high),) = limits
    assert low == 0
    assert high >= 1.05 * 122_000


def test_impact_plot_whisker_is_the_leaderboard_interval(monkeypatch):
    """With fewer careers than a bootstrap interval means anything, the Impact plot's whisker is
    the min-max range the leaderboard shows (†), and its title says so; before, the whisker was
    the bootstrap interval whatever the leaderboard said."""
    from pibench_tui.report import figures, stats

    drawn = []

    def keep(fig):
        ax = fig.axes[0]
        drawn.append((ax.get_title(), [line.get_ydata() for line in ax.lines]))
        import matplotlib.pyplot as plt

        plt.close(fig)
        return b""

    monkeypatch.setattr(figures, "_png", keep)
    values = {101: 10.0, 102: 20.0, 103: 90.0}
    row = {
        "label": "m1",
        "kind": "agent",
        "seeds": values,
        "mean": 40.0,
        "min": 10.0,
        "max": 90.0,
        "ci95": (15.0, 70.0),
        "interval": stats.interval(list(values.values())),
    }
    figures.impact_per_seed({"leaderboard": [row], "seeds": list(values)})
    ((title, ys),) = drawn
    assert "min-max range" in title
    ends = {float(y) for ydata in ys for y in np.atleast_1d(ydata)}
    assert 10.0 in ends and 90.0 in ends


def test_measure_tables_of_many_labels_are_cut_to_fit_100_columns():
    """Seven labels: the capability-axes and behaviour tables (one column per label) are cut
    into parts that fit 100 columns, every label in one of them, and no measure row wraps onto a
    second line; before, the row of each measure wrapped into several lines."""
    import io

    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import AXES_ROWS, BEHAVIOUR_ROWS, render_terminal

    labels = {f"lab-model-{i}-large": 100.0 + 10 * i for i in range(7)}
    rep = build_report(_grid(labels, 3))
    for source, spec in (("axes", AXES_ROWS), ("behaviour", BEHAVIOUR_ROWS)):
        rep[source] = {label: {key: 0.123 * i for key, _ in spec} for i, label in enumerate(labels, start=1)}
    out = io.StringIO()
    render_terminal(rep, Console(file=out, width=100))
    text = out.getvalue()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "Behaviour (1/" in text and "Capability axes (MECHANICS §17, pooled) (1/" in text
    behaviour = text[text.index("Behaviour (1/") : text.index("Census")]
    for label in labels:
        assert label in behaviour
    assert sum(line.lstrip().startswith("actions a month") for line in lines) == text.count("Behaviour (")


def test_a_label_without_a_seed_other_labels_played_is_noted():
    """A run folder deleted (a QA tester removed a collapsed career's folder: the label's mean
    rose with nothing said) leaves the label without a seed the other labels have: a note under
    the leaderboard names the label and the seed; labels with every seed get none."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import leaderboard_notes

    careers = [c for c in _grid({"a": 100.0, "b": 50.0}, 4) if not (c.label == "a" and c.seed == 3)]
    notes = leaderboard_notes(build_report(careers))
    absent = [n for n in notes if "no run folder" in n]
    assert len(absent) == 1
    assert absent[0].startswith("a: no run folder for seed 3,") and "3 careers" in absent[0]
    assert not any("no run folder" in n for n in leaderboard_notes(build_report(_grid({"a": 1.0, "b": 2.0}, 4))))


def test_without_a_baseline_row_there_is_no_default_reference():
    """Agent labels only: no row is the reference unless --reference names one (a new-user
    tester saw "reference fake-k", a label with no counted career, heading the table, where
    docs/agent.md says the default reference is the baseline policy's row only); the terminal
    and HTML render without one, and --reference still works."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import Career
    from pibench_tui.report.render import render_html, render_terminal

    def career(label: str, seed: int, impact: float) -> Career:
        return Career(
            label=label, kind="agent", scenario="short-12", seed=seed, source=f"{label}-{seed}",
            impact=impact, earned=impact, projection=0.0, collapsed=False, collapse_month=None,
            months=12, months_played=12, publications=0, grants=0, hires=0, quits=0, valid=True,
        )  # fmt: skip

    careers = [career("a", 1, 10.0), career("b", 1, 4.0)]
    rep = build_report(careers)
    assert rep["reference"] is None and all(r["vs_reference"] is None for r in rep["leaderboard"])
    from rich.console import Console

    console = Console(record=True, width=100)
    render_terminal(rep, console=console)
    assert "a" in console.export_text() and "reference a" not in console.export_text()
    assert "<html" in render_html(rep, {}).lower()
    assert build_report(careers, reference="b")["reference"] == "b"


def test_missing_counts_absent_seeds_and_the_note_reads_rows_from_their_careers():
    """A seed other labels of the scenario played and a row has no run folder for counts in
    that row's missing column (before, only careers found but not counted did: a deleted
    folder lowered nothing), also with several scenarios and a label holding the rows'
    separator " · " (before: no note at all with two scenarios); a seed a split label played
    under its other settings is said to be in that row, not "no run folder"."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import leaderboard_notes

    careers = [
        c
        for scen in ("s", "t")
        for c in _grid({"a · b": 100.0, "c": 50.0}, 4, scenario=scen)
        if not (c.label == "a · b" and c.scenario == "t" and c.seed == 3)
    ]
    rep = build_report(careers)
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["a · b · t"]["missing"] == 1 and board["a · b · t"]["absent_seeds"] == ["3"]
    assert all(board[k]["missing"] == 0 for k in ("a · b · s", "c · s", "c · t"))
    notes = [n for n in leaderboard_notes(rep) if "run folder" in n]
    assert len(notes) == 1 and notes[0].startswith("a · b · t: no run folder for seed 3, ")
    assert "over the 3 careers" in notes[0]

    split = [_career(label="m", seed=s, settings_hash="1" * 64) for s in (1, 2, 3)]
    split += [_career(label="m", seed=4, settings_hash="2" * 64)]
    split += [_career(label="n", seed=s) for s in (1, 2, 3, 4)]
    rep = build_report(split)
    board = {r["label"]: r for r in rep["leaderboard"]}
    one, two = "m · settings 11111111", "m · settings 22222222"
    assert board[one]["missing"] == 1 and board[two]["missing"] == 3 and board["n"]["missing"] == 0
    notes = leaderboard_notes(rep)
    assert f"{one}: seed 4 played only with other settings, in row '{two}'" in " ".join(notes)
    assert f"{two}: seeds 1, 2, 3 played only with other settings, in row '{one}'" in " ".join(notes)
    assert not any("no run folder" in n for n in notes)


def test_an_unfinished_career_shows_no_figures_and_no_archetype_in_the_careers_table():
    """A career still being played (a checkpoint, no result.json) is listed as unfinished with
    "—" for earned, projection, papers, hires and archetype: before, its blank zeros showed as
    results and it was called "never built". A crashed one likewise; a valid one keeps its figures."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import career_rows

    careers = _grid({"a": 100.0}, 2) + [
        _career(seed=3, valid=None, status=status, impact=0.0, earned=0.0, projection=0.0, publications=0, hires=0)
        for status in ("unfinished",)
    ]
    careers += [_career(seed=4, valid=None, status="crashed", impact=0.0, earned=0.0, publications=0, hires=0)]
    rep = build_report(careers)
    head, rows = career_rows(rep)
    by_seed = {r[head.index("seed")]: dict(zip(head, r, strict=True)) for r in rows}
    for seed, status in (("3", "unfinished"), ("4", "crashed")):
        row = by_seed[seed]
        assert row["Impact"] == status
        assert [row[k] for k in ("earned", "proj.", "papers", "hires", "archetype")] == ["—"] * 5
    assert by_seed["1"]["archetype"] == "steady" and by_seed["1"]["papers"] == "5"
    assert {c["key"]: c["archetype"] for c in rep["careers"]}["3"] is None


def test_counts_of_one_are_singular_in_the_report():
    """A report of one career: "1 career" in the terminal leaderboard's title and the HTML
    page's heading, "1 label", "scenario" (before: "1 careers, 1 labels, scenario(s)"), and
    with no reference row the title says so instead of "reference None"."""
    import io

    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import render_html, render_terminal
    from pibench_tui.words import count

    assert (count(1, "career"), count(2, "career"), count(0, "seed"), count(1500, "month")) == (
        "1 career",
        "2 careers",
        "0 seeds",
        "1,500 months",
    )
    rep = build_report([_career()])
    out = io.StringIO()
    render_terminal(rep, Console(file=out, width=100))
    assert "Leaderboard (1 career; no reference row)" in out.getvalue()
    assert "1 career, 1 label, scenario s;" in render_html(rep, {})


def test_the_leaderboard_fits_80_columns_one_line_a_row_with_labels_whole():
    """At 80 columns (QA F9: the table was 84 wide, labels shrank to one character, each row
    took 4-5 lines) the leaderboard leaves out its least needed columns, says which, and
    keeps every label whole on one line with its mean, interval and missing count; at 200
    columns every column is shown and nothing is said."""
    import io

    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import format_value, render_terminal

    labels = {"gpt-4o-mini-2024-07-18-t0": 1300.0, "claude-lab-small": 1200.0, "baseline-ish": 1000.0}
    rep = build_report(_grid(labels, 30, tokens=2_000_000, prompt_tokens=1_900_000, completion_tokens=100_000))
    means = {r["label"]: format_value(r["mean"], 1) for r in rep["leaderboard"]}
    out = io.StringIO()
    render_terminal(rep, Console(file=out, width=80))
    board = out.getvalue().split("Differences between labels")[0]
    lines = board.splitlines()
    assert max(len(line) for line in lines) <= 80
    for label, mean in means.items():
        (row,) = [line for line in lines if line.split()[:1] == [label]]
        assert row.split()[0] == label and mean in row and row.split()[-1] == "0"
    assert "Not shown at 80 columns: median" in " ".join(lines)
    rows = [line for line in lines if line.split() and line.split()[0] in labels]
    head = lines[lines.index(next(line for line in lines if "───" in line)) - 1]
    assert len(rows) == 3 and head.split()[0] == "label"
    wide = io.StringIO()
    render_terminal(rep, Console(file=wide, width=200))
    wide_board = wide.getvalue().split("Differences between labels")[0]
    assert "Not shown" not in wide_board and "median" in wide_board and "2.00M" in wide_board


def test_a_modified_standard_scenario_is_titled_so_and_never_the_default_reference(tmp_path, capsys):
    """QA F13: `pibench run baseline --scenario sub/standard.toml` (a file named standard with
    another config) titled its table "baseline on standard", and `pibench report` took that
    modified row for its default reference. Now the title says "standard (modified HASH8)"
    and the report has no reference row for it; beside a bundled scenario's baseline row,
    that one is the reference."""
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "standard.toml").write_text('name = "standard"\ndescription = "x"\nseed = 1001\nmonths = 6\n')
    runs, runs2 = tmp_path / "runs", tmp_path / "runs2"
    run = ["run", "baseline", "--seeds", "101", "--save-runs"]
    assert pibench_main([*run, str(runs), "--scenario", str(sub / "standard.toml")]) == 0
    assert re.search(r"baseline on standard \(modified [0-9a-f]{8}\)", capsys.readouterr().out)
    assert pibench_main([*run, str(runs2), "--scenario", "short-12"]) == 0
    assert "baseline on short-12" in capsys.readouterr().out
    rep = tmp_path / "rep.json"
    assert pibench_main(["report", str(runs), "--json", str(rep)]) == 0
    data = json.loads(rep.read_text())
    assert data["scenarios"][0].startswith("standard (modified ") and data["reference"] is None
    assert pibench_main(["report", str(runs), str(runs2), "--json", str(rep)]) == 0
    assert json.loads(rep.read_text())["reference"] == "baseline · short-12"


def test_pairs_are_only_of_rows_of_one_scenario():
    """QA7 F9: with two scenarios every pair of rows was listed, those of different scenarios
    with 0 pairs ("a · s1 − a · s2"); only rows of one scenario (its content) are a pair."""
    from pibench_tui.report.analysis import build_report

    rep = build_report(
        _grid({"a": 100.0, "b": 50.0}, 3, scenario="s1") + _grid({"a": 90.0, "c": 40.0}, 3, scenario="s2")
    )
    assert [(p["a"], p["b"], p["n"]) for p in rep["pairs"]] == [("a · s1", "b · s1", 3), ("a · s2", "c · s2", 3)]


def test_report_refuses_a_price_for_a_name_no_run_has(tmp_path, capsys):
    """QA7 F9: `pibench report --price nosuch=1,2` was ignored (no cost, nothing said); a
    name that is no label, row or model of the runs is a usage error naming the valid ones."""
    out = tmp_path / "runs"
    _agent_runs(out)
    capsys.readouterr()
    assert pibench_main(["report", str(out), "--price", "nosuch=1,2", "--no-simulate"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--price 'nosuch': no label or model of these runs is called so" in err, err
    assert "'idle'" in err and "'mentor'" in err, err
    assert pibench_main(["report", str(out), "--price", "idle=1,2", "--no-simulate"]) == 0


def test_the_html_report_of_one_label_says_there_are_no_pairs_instead_of_an_empty_table():
    """One label (no pairs): before, the HTML page showed "Differences between labels" with an
    empty table (only its header row) and the note explaining columns of no row; the terminal
    report skips the section. Now the HTML says in one line why there is nothing to compare,
    and a report with a pair still shows the table."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import render_html

    page = render_html(build_report([_career()]), {})
    section = page.split("<h2>Differences between labels</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<table" not in section and "No pairs to compare" in section
    two = build_report([_career(label="a", seed=1), _career(label="b", seed=1)])
    assert two["pairs"]
    section = render_html(two, {}).split("<h2>Differences between labels</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<table" in section and "No pairs to compare" not in section
