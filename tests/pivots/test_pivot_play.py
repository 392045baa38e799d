"""A person answers pivot cases in the TUI (`pibench play --pivots`, issue 24 part 4): the
panels at the fork read-only, the plans, a/b, the reveal, answers saved like an eval run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pibench_tui.pivots.cases import PivotFileError, load_cases, load_key
from pibench_tui.pivots.fork_record import action_log_to_fork
from pibench_tui.pivots.play import PivotApp, PlansScreen, RevealScreen, human_order, open_session
from pibench_tui.pivots.score import score_run
from tests.pivots.casesets import make_set


@pytest.fixture(scope="module")
def caseset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four cases from two baseline careers (months 3 and 4)."""
    return make_set(tmp_path_factory.mktemp("pvplay") / "set", careers=2, per_career=2, month=3)


@pytest.mark.asyncio
async def test_a_player_reads_the_plans_chooses_and_sees_the_futures(caseset: Path, tmp_path: Path) -> None:
    """The app opens on the fork month with the plans dialog; esc shows the panels, p brings
    the plans back, `a` chooses the plan shown first: the answer is saved in the case's own
    labels (mapped through the order shown), the reveal says whether it was the better plan,
    and enter moves to the next case's plans."""
    session = open_session(str(caseset), None, str(tmp_path / "human"))
    app = PivotApp(session, test_mode=True)
    first = session.cases[0]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        assert app.replayer.month == first.fork_month
        await pilot.press("escape")
        assert not isinstance(app.screen, PlansScreen)
        assert "PIVOT case 1/4" in app.banner()
        await pilot.press("p")
        assert isinstance(app.screen, PlansScreen)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, RevealScreen)
        chosen = human_order(first.id)[0]
        key = load_key(caseset)
        text = "\n".join(app.screen.lines())
        assert ("right" in text) == (key[first.id].better == chosen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        assert app.screen.case.id == session.cases[1].id
        assert app.replayer.month == session.cases[1].fork_month
    lines = [json.loads(x) for x in (tmp_path / "human" / "answers.jsonl").read_text().splitlines()]
    assert lines == [{"id": first.id, "order": human_order(first.id), "answer": chosen, "raw": "ANSWER: 1 (key a)"}]


@pytest.mark.asyncio
async def test_a_person_resumes_at_the_first_unanswered_case_and_is_scored_once_per_case(
    caseset: Path, tmp_path: Path
) -> None:
    """Reopening the same answers folder starts at the first unanswered case; `pivots score`
    counts a person's single answer per case (not half of two orders)."""
    run = tmp_path / "h"
    session = open_session(str(caseset), None, str(run))
    key = load_key(caseset)
    for case in session.cases[:2]:
        order = human_order(case.id)
        session.record(case, 1 if order[0] == key[case.id].better else 2)  # the better plan
    again = open_session(str(caseset), None, str(run))
    app = PivotApp(again, test_mode=True)
    assert app.index == 2
    cases = load_cases(caseset)
    answers = [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]
    scored = score_run(cases, key, answers, sessions_per_case=1)
    per = {c["id"]: c["accuracy"] for c in scored["cases"]}
    assert per[cases[0].id] == 1.0 and per[cases[1].id] == 1.0 and per[cases[2].id] == 0.0
    r = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "pivots", "score", str(run), "--json", str(tmp_path / "s.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "s.json").read_text())["runs"][0]["overall"]["accuracy"] == 0.5


def test_a_record_that_is_not_its_seeds_career_is_refused_naming_the_case(caseset: Path, tmp_path: Path) -> None:
    """A case whose dashboard was edited (or whose seed was changed) cannot be shown as the
    career at its fork: the replay refuses it by case id; a sealed case (no seed) too."""
    case = load_cases(caseset)[0]
    raw = dict(case.raw)
    raw["record"] = {**case.record, "dashboard": {**case.record["dashboard"], "budget": 1.0}}
    (tmp_path / "cases.jsonl").write_text(json.dumps(raw) + "\n")
    bad = load_cases(tmp_path)[0]
    with pytest.raises(PivotFileError, match=f"case {case.id}: its record is not the career"):
        action_log_to_fork(bad)
    sealed = load_cases(tmp_path)[0].__class__(**{**bad.__dict__, "raw": {**raw, "seed": None}})
    with pytest.raises(PivotFileError, match="sealed"):
        action_log_to_fork(sealed)


def test_play_pivots_refuses_a_bad_set_before_the_ui_starts(tmp_path: Path) -> None:
    """`pibench play --pivots` on a file that is not a case set exits 1 with the reason, and
    combining it with --seed is a usage error."""
    (tmp_path / "cases.jsonl").write_text("not json\n")
    r = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "play", "--pivots", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert r.returncode == 1 and "line 1 is not JSON" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "play", "--pivots", str(tmp_path), "--seed", "3"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert r.returncode == 2 and "--pivots" in r.stderr


def _sealed_copy(caseset: Path, folder: Path) -> tuple[Path, Path, set[int]]:
    """The set with each seed replaced by a commitment (as `pivots build --seal` writes it),
    its seal file, and the seeds."""
    from pibench_tui.cli.seeds import SEAL_FORMAT, commit_seed, file_commitment, write_seal

    folder.mkdir()
    cases = [json.loads(x) for x in (caseset / "cases.jsonl").read_text().splitlines()]
    seeds = sorted({c["seed"] for c in cases})
    rows = [{"seed": s, "salt": f"{s:032x}", "commitment": commit_seed(s, f"{s:032x}")} for s in seeds]
    by_seed = {r["seed"]: r["commitment"] for r in rows}
    for c in cases:
        c["commitment"], c["seed"] = by_seed[c["seed"]], None
    (folder / "cases.jsonl").write_text("".join(json.dumps(c, sort_keys=True) + "\n" for c in cases))
    seal = folder.parent / "seal.json"
    write_seal(
        {"format": SEAL_FORMAT, "seeds": rows, "commitment": file_commitment([r["commitment"] for r in rows])}, seal
    )
    return folder, seal, set(seeds)


@pytest.mark.asyncio
async def test_a_sealed_set_is_played_from_the_evaluators_seal_file_without_showing_a_seed(
    caseset: Path, tmp_path: Path
) -> None:
    """`play --pivots SEALED --seal FILE`: each career replays from the seal file's seed, the
    header names it sealed:<prefix> and no screen shows the seed; with no key the answer is
    saved and the reveal waits. Without --seal the command refuses, naming the option."""
    sealed, seal, seeds = _sealed_copy(caseset, tmp_path / "sealed")
    r = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "play", "--pivots", str(sealed), "--answers", str(tmp_path / "x")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert r.returncode == 1 and "--seal FILE" in r.stderr, r.stderr
    session = open_session(str(sealed), None, str(tmp_path / "human"), str(seal))
    app = PivotApp(session, test_mode=True)
    async with app.run_test(size=(220, 40)) as pilot:  # wide enough for the header's career name
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        await pilot.press("escape")
        await pilot.pause()
        import html
        import re

        shown = html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")
        assert "sealed:" in shown and not any(f"seed {s}" in shown for s in seeds)
        await pilot.press("p", "a")
        await pilot.pause()
        assert "sealed or was not given" in "\n".join(app.screen.lines())
    lines = [json.loads(x) for x in (tmp_path / "human" / "answers.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [session.cases[0].id]


def test_play_pivots_command_passes_the_seal_file_to_the_replay(
    caseset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pibench play --pivots SEALED --seal FILE` through the real entry point: the seal file
    reaches the session (each career replays from its seed), the player chooses plan A in
    the app (run headless) and the answer is saved (before: --seal was ignored and the
    command refused the set as sealed)."""
    from pibench_tui.cli.command import main

    sealed, seal, seeds = _sealed_copy(caseset, tmp_path / "sealed")
    seen: list[dict[str, int] | None] = []
    original = PivotApp.run

    async def choose_a(pilot: object) -> None:
        app = pilot.app  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        seen.append(app.session.seeds)
        await pilot.press("a")  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        app.exit()

    def run_headless(self: PivotApp, **_kw: object) -> object:
        return original(self, headless=True, size=(120, 40), auto_pilot=choose_a)

    monkeypatch.setattr(PivotApp, "run", run_headless)
    code = main(["play", "--pivots", str(sealed), "--seal", str(seal), "--answers", str(tmp_path / "h")])
    assert code == 0
    assert seen and set(seen[0].values()) == seeds  # type: ignore[union-attr]
    lines = [json.loads(x) for x in (tmp_path / "h" / "answers.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["raw"] == "ANSWER: 1 (key a)"


def _screen_text(app: PivotApp) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


@pytest.mark.asyncio
async def test_plans_are_named_plan_1_and_plan_2_in_the_dialog_the_reveal_and_the_answers(
    caseset: Path, tmp_path: Path
) -> None:
    """The dialog shows Plan 1 and Plan 2 (as eval shows a model), never the case's own
    labels A/B; key 2 chooses the plan shown second; the reveal names the plans Plan 1/2
    with Δ as Plan 1 − Plan 2; the saved line keeps the case's label and `ANSWER: 2`."""
    session = open_session(str(caseset), None, str(tmp_path / "human"))
    app = PivotApp(session, test_mode=True)
    case = session.cases[0]
    order = human_order(case.id)
    key = load_key(caseset)[case.id]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = _screen_text(app)
        assert "Plan 1" in shown and "Plan 2" in shown and "Plan A" not in shown and "Plan B" not in shown
        await pilot.press("2")
        await pilot.pause()
        assert isinstance(app.screen, RevealScreen)
        text = "\n".join(app.screen.lines())
        assert "You chose Plan 2" in text and "plan A" not in text.lower() and "plan B" not in text.lower()
        delta = key.delta if order[0] == "A" else -key.delta
        assert f"Impact(Plan 1) − Impact(Plan 2) = {delta:+.1f}" in text
        assert f"Plan {1 if key.better == order[0] else 2} earned more" in text
    line = json.loads((tmp_path / "human" / "answers.jsonl").read_text())
    assert line == {"id": case.id, "order": order, "answer": order[1], "raw": "ANSWER: 2 (key 2)"}


@pytest.mark.asyncio
async def test_help_lists_the_pivot_keys_and_q_quits_from_the_plans_dialog(caseset: Path, tmp_path: Path) -> None:
    """`?` in the plans dialog opens the help with the pivot keys (choose Plan 1/2 with
    1/a and 2/b, p the plans, q quit) beside the viewer's; `q` in the dialog quits the app
    (before: the help had no a/b/p and q did nothing there). Nothing is saved by quitting."""
    from pibench_tui.tui.screens.help import HelpScreen

    session = open_session(str(caseset), None, str(tmp_path / "human"))
    app = PivotApp(session, test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.keys
        for row in ("| 1 or a | choose Plan 1 |", "| 2 or b | choose Plan 2 |", "| p |", "| q |", "| j |"):
            assert row in keys, row
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PlansScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0
    assert not (tmp_path / "human" / "answers.jsonl").exists() or not (tmp_path / "human" / "answers.jsonl").read_text()


def _rows(app: PivotApp) -> list[str]:
    """The terminal rows the active screen shows."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _flat(rows: list[str]) -> str:
    """The rows as one line of words, wrapping removed; with a dialog open only what is
    inside its border (``█ … █``), not the panels around it."""
    inside = [r[r.index("█") + 1 : r.rindex("█")] if r.count("█") >= 2 else r for r in rows]
    return " ".join(" ".join(inside).replace("\xa0", " ").replace("▀", " ").replace("▄", " ").split())


@pytest.mark.asyncio
async def test_pivots_fit_80x24_plans_footer_reveal_and_ledger(caseset: Path, tmp_path: Path) -> None:
    """At 80×24: the plans dialog shows the question and both plans whole; on the panels the
    footer's keys (a Plan 1, b Plan 2, p Plans, ? Help, q Quit) fit the row with none cut
    (before: '… b Plan 2 j Jum'); the ledger's note is whole; the reveal
    shows every line of its text whole, with the histogram below it, not over it."""
    session = open_session(str(caseset), None, str(tmp_path / "human"))
    app = PivotApp(session, test_mode=True)
    case = session.cases[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        flat = _flat(_rows(app))
        assert case.question in flat
        for plan in case.plans.values():
            assert " ".join(plan["text"].split()) in flat
        await pilot.press("escape")
        await pilot.pause()
        footer = _rows(app)[-1].rstrip()
        for key in ("a Plan 1", "b Plan 2", "p Plans", "? Help", "q Quit"):
            assert key in footer, footer
        assert len(footer) < 80, footer  # nothing runs off the edge
        await pilot.press("8")
        await pilot.pause()
        assert "Ledger: the latest 150 entries (query('select * from ledger') has all)" in _flat(_rows(app))
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, RevealScreen)
        rows = _rows(app)
        flat = _flat(rows)
        for line in app.screen.lines():
            assert " ".join(line.split()) in flat, line
        last_text = max(i for i, r in enumerate(rows) if "Collapsed:" in r)
        plot_title = min(i for i, r in enumerate(rows) if "Impact over the branches" in r)
        assert plot_title > last_text
