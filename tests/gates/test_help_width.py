"""Every `pibench ... --help` fits an 80-column terminal (QA7 F10/F11: `pibench agent --help`,
`pibench report --help` and `pibench pivots eval --help` printed hand-wrapped lines of up to
155 characters at COLUMNS=80)."""

from __future__ import annotations

import argparse

from pibench_tui.cli.command import build_parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def _every_parser() -> dict[str, argparse.ArgumentParser]:
    """``"pibench agent"`` -> its parser, for every command and subcommand (each built as
    ``pibench NAME`` would build it: some are built in full only when named)."""
    found: dict[str, argparse.ArgumentParser] = {"pibench": build_parser()}
    for name in _subcommands(found["pibench"]):
        parser = _subcommands(build_parser([name, "--help"]))[name]
        found[f"pibench {name}"] = parser
        found.update({f"pibench {name} {sub}": p for sub, p in _subcommands(parser).items()})
    return found


def test_every_help_fits_80_columns(monkeypatch):
    """At COLUMNS=80 no line of any command's --help is wider than 80 characters (the
    commands and subcommands are found from the parser itself, so a new one is checked too)."""
    monkeypatch.setenv("COLUMNS", "80")
    parsers = _every_parser()
    assert {"pibench agent", "pibench report", "pibench pivots eval", "pibench headless"} <= set(parsers)
    wide = {name: [line for line in p.format_help().splitlines() if len(line) > 80] for name, p in parsers.items()}
    assert not {k: v for k, v in wide.items() if v}, {k: v for k, v in wide.items() if v}


def test_every_document_a_help_names_is_shipped(monkeypatch):
    """A `*.md` file a command's --help names exists in the repository, so a new user can open
    it (`pibench pivots --help` pointed at PIVOTS.md, a design note that is not shipped; the
    user's page is docs/pivots.md)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("COLUMNS", "400")  # one line per paragraph: a name is never split
    named = {
        (name, doc) for name, p in _every_parser().items() for doc in re.findall(r"[\w./-]+\.md\b", p.format_help())
    }
    assert named, "no help names a document: the pattern is stale"
    missing = sorted((name, doc) for name, doc in named if not (root / doc).is_file())
    assert not missing, missing
