"""Headless help under a scenario shows that scenario's rule numbers (issue 9 §2: one home
for every rule; the numbers come from ``lab.rules()``, never typed into the text)."""

from __future__ import annotations

SCENARIO = """name = "rich-lab"
description = "PhD pay, attention and polish saturation changed"
seed = 5

[world]
pay_phd = 4100.0
attention_base = 140.0
polish_cap_hours = 9.0
memory_max_chars = 5000
"""

BLOCK = """help(recruit.offer)
help(lab.attention)
help(papers.polish)
help(write_memory)
r = lab.rules()
print("rules", r["pay"]["phd"], r["attention"]["base"], r["hours"]["polish_saturation"])
"""


def test_headless_help_and_rules_show_the_scenario_numbers(pibench, tmp_path):
    """With a scenario TOML that changes PhD pay, the attention base and the polish saturation,
    help(...) and lab.rules() in headless mode show its numbers and not the defaults."""
    path = tmp_path / "rich-lab.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    run = pibench(["headless", "--scenario", str(path)], BLOCK)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "rules 4100.0 140.0 9.0" in out
    assert "$4,100/month" in out and "$3,200" not in out
    assert "base 140 h/month" in out and "100 h" not in out
    assert "saturate at 9 h" in out and "saturate at 12 h" not in out
    assert "5,000 characters" in out and "6,000" not in out


def test_repl_completion_help_shows_the_scenario_numbers():
    """The REPL's completion hints come from the scenario's help, not the default numbers."""
    from prompt_toolkit.document import Document

    from pibench_tui.headless.repl import make_completer
    from world.api import call_docs
    from world.config import WorldConfig

    completer = make_completer(docs=call_docs(WorldConfig(pay_ra=2222.0)))
    [hint] = [c.display_meta_text for c in completer.get_completions(Document("recruit.hire_r"), None)]
    assert "$2,222/month" in hint and "$1,800" not in hint
