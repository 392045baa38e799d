"""QA (issue 27, seed 2718): the help put "At most 12 researchers" right after the sentence on
RAs and managers, and read as a cap on everyone; the player had 14 people. The help says who
counts (MECHANICS Decisions §1: PhD students and postdocs, with open offers, students not yet
arrived and open postdoc searches) and that RAs and managers do not, the number from the rules."""

from __future__ import annotations

from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.help import rules_markdown

from .conftest import new_world


def test_the_help_says_the_researcher_cap_leaves_out_ras_and_managers():
    """The People paragraph names the cap from ``lab.rules()`` and that RAs and managers do not count."""
    game = Game(new_world())
    text = " ".join(rules_markdown(game.rules, game.world.cfg).split())
    cap = game.rules["caps"]["researchers"]
    assert f"At most {cap} researchers (PhD students and postdocs," in text
    assert "RAs and managers do not count." in text
