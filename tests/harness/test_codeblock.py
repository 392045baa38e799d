"""Which code a reply runs: the first fenced block tagged '', py or python (MECHANICS §16)."""

from __future__ import annotations

from pibench_tui.harness.codeblock import find_code


def test_first_python_block_runs_and_other_tags_are_skipped():
    """A json block is skipped; the first untagged/py/python block is the code."""
    reply = "Plan:\n```json\n{}\n```\nNow:\n```py\na = 1\n```\n```python\nb = 2\n```"
    block = find_code(reply)
    assert block.code == "a = 1\n" and block.other_tags == ("json",)
    assert find_code("```\nx\n```").code == "x\n"
    assert find_code("~~~~Python\ny\n~~~~").code == "y\n"


def test_no_block_and_unclosed_block():
    """Prose has no code; a block cut off at the end of the reply is not run."""
    assert find_code("just words").code is None
    cut = find_code("```python\nprint(1")
    assert cut.code is None and cut.unclosed
    assert find_code("````python\n```\ninner\n````").code == "```\ninner\n"
