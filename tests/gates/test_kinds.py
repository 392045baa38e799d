"""The Literal aliases of world/kinds.py make a misspelt role or status a type error."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import get_args

import pytest

from world import kinds
from world.state import Applicant, Draft, Entity, Event, Person, Posting, Project, Proposal, Submission

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = """\
from world.state import Person, Submission


def ok(p: Person, sub: Submission) -> bool:
    return p.status == "active" and p.role in ("phd", "postdoc") and sub.status != "withdrawn"


def misspelt_comparison(p: Person) -> bool:
    return p.status == "actve"


def misspelt_assignment(sub: Submission) -> None:
    sub.status = "accepted"
"""


def test_a_misspelt_status_fails_the_type_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mypy with strict equality flags a comparison and an assignment with a word outside the
    field's Literal (``"actve"``, a submission ``"accepted"``) and passes the correct uses."""
    api = pytest.importorskip("mypy.api")
    (tmp_path / "snippet.py").write_text(SNIPPET)
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    out, err, status = api.run(
        [
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--strict-equality",
            "--no-site-packages",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(tmp_path / "snippet.py"),
        ]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, out + err
    assert len(errors) == 2, out
    assert "snippet.py:9:" in errors[0] and "[comparison-overlap]" in errors[0], out
    assert "snippet.py:13:" in errors[1] and "[assignment]" in errors[1], out


def test_strict_equality_is_on_for_the_whole_codebase() -> None:
    """The project's mypy configuration turns ``strict_equality`` on globally (every checked
    package, the front ends included), so comparisons with the Literal aliases are checked
    wherever CI type-checks."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config.get("strict_equality") is True
    assert not any(o.get("strict_equality") is False for o in config.get("overrides", []))


@pytest.mark.parametrize(
    ("entity", "name", "alias"),
    [
        (Person, "role", "Role"),
        (Person, "status", "PersonStatus"),
        (Applicant, "status", "ApplicantStatus"),
        (Project, "status", "ProjectStatus"),
        (Draft, "status", "DraftStatus"),
        (Submission, "status", "SubmissionStatus"),
        (Proposal, "status", "ProposalStatus"),
        (Event, "kind", "EventKind"),
        (Event, "status", "EventStatus"),
        (Posting, "status", "PostingStatus"),
    ],
)
def test_entity_fields_are_annotated_with_their_alias(entity: type[Entity], name: str, alias: str) -> None:
    """Each role/status/kind field of the world's entities is annotated with its alias from
    world/kinds.py, and its default (if it has one) is one of the alias's words."""
    field = next(f for f in dataclasses.fields(entity) if f.name == name)
    assert field.type == alias
    if field.default is not dataclasses.MISSING:
        assert field.default in get_args(getattr(kinds, alias))
