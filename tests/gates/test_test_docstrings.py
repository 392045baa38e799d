"""Every test says what it proves: a test function without a docstring fails the suite."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

MIN_WORDS = 5
"""A docstring shorter than this cannot say what property a test proves ("Test foo." fails)."""


def _tests_of(path: Path) -> list[tuple[str, int, str | None]]:
    """``(name, line, docstring)`` of each test function or method in a test file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.name, node.lineno, ast.get_docstring(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]


def test_every_test_has_a_docstring_saying_what_it_proves() -> None:
    """Each ``test*`` function or method in ``tests/**/test_*.py`` has a docstring of at least
    MIN_WORDS words; the failure lists every test that lacks one, by file and line."""
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 50  # the scan really sees the suite
    missing = [
        f"{path.relative_to(TESTS.parent)}:{line} {name}"
        for path in files
        for name, line, doc in _tests_of(path)
        if doc is None or len(doc.split()) < MIN_WORDS
    ]
    assert not missing, "tests without a docstring saying what they prove:\n" + "\n".join(missing)


def test_the_scan_finds_a_test_without_a_docstring(tmp_path: Path) -> None:
    """The scan reports a test function and a test method without docstrings (sync and async) and a
    one-word docstring, and accepts a test whose docstring states a property."""
    path = tmp_path / "test_sample.py"
    path.write_text(
        "def test_bare():\n    assert 1\n\n"
        "async def test_async_bare():\n    assert 1\n\n"
        "class TestGroup:\n    def test_method(self):\n        assert 1\n\n"
        'def test_terse():\n    """Test."""\n\n'
        'def test_good():\n    """Adding zero to a number leaves it unchanged."""\n    assert 1 + 0 == 1\n\n'
        "def helper():\n    pass\n"
    )
    short = {name for name, _, doc in _tests_of(path) if doc is None or len(doc.split()) < MIN_WORDS}
    assert short == {"test_bare", "test_async_bare", "test_method", "test_terse"}
