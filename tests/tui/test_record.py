"""The lab's own record as context for outcomes (pibench_tui.tui.record), from observable rows only."""

from __future__ import annotations

from pibench_tui.tui.record import venue_record


class _Game:
    """A stand-in exposing only ``query`` over fixed submission rows (what venue_record reads)."""

    def __init__(self, rows: list[dict]) -> None:
        self.rows = rows

    def query(self, sql: str) -> list[dict]:
        return self.rows


def test_first_decision_at_a_venue_is_read_against_the_labs_other_venues():
    """A first rejection at NAIC (mean 4.87) is shown next to the lab's W-SHOP accept (3.93):
    "no earlier decision at NAIC" alone gave no scale to read the scores on."""
    rows = [
        {
            "id": "SUB001",
            "venue": "W-SHOP",
            "status": "accept",
            "decision_month": 21,
            "reviewer_scores": "[3.7, 3.9, 4.2]",
        },
        {
            "id": "SUB002",
            "venue": "NAIC",
            "status": "reject",
            "decision_month": 30,
            "reviewer_scores": "[5.0, 4.7, 4.9]",
        },
    ]
    text = venue_record(_Game(rows), "NAIC", before=30)
    assert text.startswith("no earlier decision at NAIC") and "W-SHOP 1 accepted at mean 3.93" in text
    assert "4.87" not in text  # the decision being explained is not its own context
    assert venue_record(_Game(rows[:1]), "W-SHOP", before=21) == "no earlier decision at W-SHOP"
    later = venue_record(_Game(rows), "NAIC")
    assert later.startswith("NAIC before:") and "1 rejected (mean score 4.87)" in later
