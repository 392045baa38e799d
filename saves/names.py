"""Save names: what a user may type, when two names are the same, autosave names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from saves.errors import (
    SaveError,
)

if TYPE_CHECKING:  # pragma: no cover
    pass


MAX_NAME = 120
"""Longest save name, in characters."""


RESERVED_CHARS = '@/\\:*?"<>|'
"""Characters a save name may not contain (``@`` is reserved for autosaves, the rest are
path characters)."""

VALID_NAMES = (
    "a save name may use letters, digits, spaces and punctuation other than "
    + " ".join(RESERVED_CHARS)
    + f", at most {MAX_NAME} characters "
    "('@' is reserved for autosaves such as NAME@m07)"
)
"""What :func:`check_name` accepts, for messages."""

AUTOSAVE_NAME = re.compile(r"^(?P<career>.+)@m(?P<month>\d{2,})(?P<end>-end)?$")


def check_name(name: str, *, autosave_ok: bool = False) -> str:
    """Validate a save name given by the user.

    Args:
        name: any non-empty text without control characters, surrounding blanks or the
            characters of :data:`RESERVED_CHARS`, at most ``MAX_NAME`` characters (unicode
            is welcome).
        autosave_ok: also accept an autosave's name (``CAREER@m07``, ``CAREER@m60-end``),
            e.g. the name inside an exported autosave being imported.

    Returns:
        The name.

    Raises:
        SaveError: the name is unusable; the message says why and what is valid.
    """
    if not isinstance(name, str) or not name:
        raise SaveError(f"a save name must be a non-empty text; {VALID_NAMES}")
    if autosave_ok:
        m = AUTOSAVE_NAME.match(name)
        if m is not None:
            check_name(m.group("career"))
            return name
    if name != name.strip():
        raise SaveError(f"save name {name!r} must not start or end with blanks; {VALID_NAMES}")
    if len(name) > MAX_NAME:
        raise SaveError(f"save name is {len(name)} characters long; {VALID_NAMES}")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise SaveError(f"save name {name!r} contains a control character; {VALID_NAMES}")
    bad = sorted({c for c in name if c in RESERVED_CHARS}, key=RESERVED_CHARS.index)
    if bad:
        raise SaveError(f"save name {name!r} contains {' '.join(repr(c) for c in bad)}; {VALID_NAMES}")
    if set(name) == {"."}:
        raise SaveError(f"save name {name!r} is only dots; {VALID_NAMES}")
    return name


# Letters of other scripts that look like Latin ones (after casefolding): Cyrillic and Greek.
_LOOKALIKES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ѕ": "s",
        "һ": "h",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "l",
        "ү": "y",
        "ɡ": "g",
        "α": "a",
        "β": "b",
        "ε": "e",
        "ζ": "z",
        "η": "h",
        "ι": "i",
        "κ": "k",
        "μ": "m",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ϲ": "c",
        "ϳ": "j",
    }
)


def name_key(name: str) -> str:
    """The form under which two save names count as the same name.

    NFKC (full-width and other compatibility forms become plain ones), casefold (``CAR1`` =
    ``car1``), invisible format characters (zero-width spaces and joiners) dropped, and
    Cyrillic and Greek letters that look like Latin ones mapped to them (``cаr1`` with a
    Cyrillic ``а`` = ``car1``). Used only to refuse look-alike names; saves keep the name
    exactly as typed.
    """
    import unicodedata

    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", text.translate(_LOOKALIKES))


def autosave_name(career: str, month: int, finished: bool = False) -> str:
    """The name of a career's autosave at ``month`` (e.g. ``"mylab@m07"``, ``"mylab@m60-end"``)."""
    return f"{career}@m{month:02d}" + ("-end" if finished else "")


def canonical_autosave(name: str) -> str:
    """``name`` with an autosave's month written as autosaves are named (:func:`autosave_name`):
    ``"c1@m2"`` → ``"c1@m02"``, ``"c1@m007-end"`` → ``"c1@m07-end"``; any other name unchanged."""
    m = re.match(r"^(?P<career>.+)@m(?P<month>\d+)(?P<end>-end)?$", name)
    return autosave_name(m["career"], int(m["month"]), bool(m["end"])) if m else name


def branch_notice(asked: str, career: str, branch: str) -> str:
    """What a session resuming ``asked``, an older save of ``career``, tells the player: what
    is played from it is saved as the new career ``branch`` (``SaveStore.branch_name``), and
    how to choose otherwise (docs/saves.md, "Playing on from an older save")."""
    return (
        f"{asked!r} is older than the newest save of career {career!r}, so what you play from it is "
        f"saved as the new career {branch!r} and {career!r} stays as it is (--save NAME chooses "
        f"the name; --save {career} replaces the career with this branch)"
    )
