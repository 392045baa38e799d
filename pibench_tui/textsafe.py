"""The text-safety boundary: text that comes from a model or from agent code, made safe
where it enters pibench and shown safely wherever a person reads it (issue 25 §2, §3).

Two steps, one home:

* :func:`clean` -- where text *enters* pibench (a backend's reply or error, agent output,
  an exception's text, a label): lone surrogates (JSON ``"\\ud800"``), NUL and bytes that
  are not UTF-8 become U+FFFD, so the text can always be written as UTF-8 (a transcript, a
  save, a terminal) and never ends a career with ``UnicodeEncodeError``. Everything else is
  kept as it was (code keeps its meaning).
* :func:`visible` -- where text is *shown* (a terminal, a Rich table, a Textual widget):
  control, format and separator characters (ESC, CR, BEL, NEL, U+2028, bidi overrides,
  zero-width ...) become visible escapes (``\\x1b``, ``\\u2028``), so no terminal sequence
  (OSC, CSI) runs and no line break other than ``\\n`` remains. :func:`rich_text` wraps
  the result in a :class:`rich.text.Text` (never parsed as markup) and :func:`markup_safe`
  escapes it for a string that *is* parsed as Rich/Textual markup.

:func:`lookalike_start` tells whether a line starts like one of given words when letters of
other scripts that look Latin (Cyrillic ``і``, Greek ``ο`` ...) are read as any letter: the
guard of headless mode's ``[agent]`` prefix.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = [
    "clean",
    "clean_tree",
    "escape_agent_text",
    "from_bytes",
    "html_text",
    "lookalike_start",
    "reads_as",
    "markup_safe",
    "rich_text",
    "shown_words",
    "skeleton",
    "visible",
    "words_read_as",
]

#: Lone surrogates and NUL: what :func:`clean` replaces.
_UNSAFE = re.compile("[\ud800-\udfff\x00]")
#: Characters that may need escaping when shown: everything outside printable ASCII, tab and newline.
_SUSPECT = re.compile(r"[^\x20-\x7e\t\n]")
_SUSPECT_NL = re.compile(r"[^\x20-\x7e]")
#: Unicode categories shown as escapes: controls (C0, DEL, C1: ESC, CR, VT, FF, NEL ...),
#: format characters (U+200B, U+FEFF, bidi overrides ...), line and paragraph separators
#: (U+2028, U+2029), lone surrogates, unassigned and private-use code points are kept.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def clean(text: Any) -> str:
    """``text`` (``str()`` of it when it is not a string) with every lone surrogate and NUL
    replaced by U+FFFD: always encodable as UTF-8, otherwise unchanged."""
    if not isinstance(text, str):
        text = str(text)
    return _UNSAFE.sub("\ufffd", text)


def from_bytes(data: bytes) -> str:
    """Bytes from a process or a socket as text: invalid UTF-8 becomes U+FFFD, then :func:`clean`."""
    return clean(data.decode("utf-8", "replace"))


def clean_tree(value: Any) -> Any:
    """:func:`clean` applied to every string (keys included) of a JSON-like value
    (dicts, lists, tuples); other values are returned as they are."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean_tree(k): clean_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_tree(v) for v in value]
    return value


def _escape_char(ch: str) -> str:
    if ch == "\r":
        return "\\r"
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: Any, *, newlines: bool = False) -> str:
    """Text made safe to show: every control, format, line- or paragraph-separator
    character and lone surrogate (ESC, CR, VT, FF, NEL, U+2028, U+2029, U+200B, U+FEFF,
    bidi overrides ...) becomes a visible escape (``\\x1b``, ``\\u2028``), so no terminal
    sequence runs and no line break other than ``\\n`` remains for a reader to split on.

    Args:
        text: What a model, agent code or a file wrote (``str()`` of a non-string).
        newlines: Escape ``\\n`` (and tab) too (a one-line cell or message).
    """
    if not isinstance(text, str):
        text = str(text)

    def repl(match: re.Match[str]) -> str:
        ch = match.group()
        if ch in "\n\t":
            return "\\n" if ch == "\n" else "\\t"
        if unicodedata.category(ch) in _ESCAPED_CATEGORIES:
            return _escape_char(ch)
        return ch

    pattern = _SUSPECT_NL if newlines else _SUSPECT
    return pattern.sub(repl, text)


#: The name headless mode has used for :func:`visible` (agent output on a console).
escape_agent_text = visible


def html_text(text: Any) -> str:
    """:func:`visible` text escaped for HTML: an HTML page shows control, format and bidi
    characters as the terminal does (``\\x1b``, ``\\u202e``). Escaped for HTML alone, an OSC
    sequence in a label ran when the page was ``cat`` to a terminal, and a right-to-left
    override reversed the rest of its table cell in a browser."""
    import html

    return html.escape(visible(text))


def rich_text(text: Any, *, newlines: bool = False, style: str = "") -> Any:
    """:func:`visible` text as a :class:`rich.text.Text`: shown literally, never parsed as markup."""
    from rich.text import Text

    return Text(visible(text, newlines=newlines), style=style)


def markup_safe(text: Any, *, newlines: bool = False) -> str:
    """:func:`visible` text escaped for a string that Rich or Textual parses as markup."""
    from rich.markup import escape

    return escape(visible(text, newlines=newlines))


#: ASCII characters a reader takes for others in many fonts (``l``/``1``/``I``/``|``,
#: ``0``/``O``, ``5``/``S``), folded to one of each class on both sides of a comparison.
_ASCII_CONFUSABLE = str.maketrans({"1": "l", "i": "l", "|": "l", "!": "l", "0": "o", "5": "s", "$": "s"})
#: Pairs of ASCII letters read as one (``rn`` as ``m``, ``vv`` as ``w``, ``cl`` as ``d``).
_ASCII_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


#: Categories of characters that add nothing a reader reads as a letter of its own:
#: non-spacing and enclosing marks (an overlay such as U+0336 on ``=``, an accent),
#: format and control characters (zero-width spaces, direction marks).
_UNSEEN_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc"})


#: Letters and symbols that a terminal draws as an empty cell: the Hangul fillers (U+115F,
#: U+1160, U+3164, U+FFA0) and the blank Braille pattern (U+2800). A reader sees a space
#: (QA pass 6: ``\u2800Impact 9999.0`` passed the console guard).
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_SPACES = re.compile(" {2,}")


def _shown_char(ch: str) -> str:
    """What a reader sees of one (decomposed) character: a space for any space, separator
    or blank-looking letter (:data:`BLANK_LOOKING`); nothing for a mark, a format or control
    character, or one that is not printable (unassigned, private use); else the character."""
    if ch in "\n\t":
        return ch
    if ch.isspace() or ch in BLANK_LOOKING:
        return " "
    if unicodedata.category(ch) in _UNSEEN_CATEGORIES or not ch.isprintable():
        return ""
    return ch


def _without_marks(text: str) -> str:
    """``text`` as a reader sees it: decomposed (NFKD), every non-spacing or enclosing mark,
    format or control character and non-printable code point dropped, every space,
    separator and blank-looking letter (:data:`BLANK_LOOKING`) a plain space, runs of spaces
    one, then recomposed (NFKC): ``=\u0336==`` reads as ``===``, ``pi\u0301bench`` as
    ``pibench``, ``===\u2800pibench`` as ``=== pibench``. Newlines and tabs stay (they separate)."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = _SPACES.sub(" ", "".join(_shown_char(ch) for ch in decomposed))
    return unicodedata.normalize("NFKC", kept)


def _skeleton(text: str) -> str:
    """Marks and invisible characters dropped (:func:`_without_marks`), NFKC-normalised,
    stripped, case-folded, ASCII look-alikes folded (``1``/``i``/``|`` as ``l``, ``0`` as
    ``o``, ``rn`` as ``m`` ...): how a reader may take the start of a line."""
    folded = _without_marks(text).strip().casefold().translate(_ASCII_CONFUSABLE)
    for pair, single in _ASCII_PAIRS:
        folded = folded.replace(pair, single)
    return folded


def skeleton(text: str) -> str:
    """How a reader may take ``text`` (:func:`_skeleton`: NFKC, case folded, ASCII look-alikes
    folded); compare it with the skeleton of what it must not pass for."""
    return _skeleton(text)


def _same_or_lookalike(got: str, want: str) -> bool:
    """A character of a line against one of a reserved word: equal, or a non-ASCII letter or
    mark standing for an ASCII letter (``і`` U+0456 for ``i``, ``ο`` U+03BF for ``o``)."""
    if got == want:
        return True
    return ord(got) > 0x7F and want.isascii() and want.isalpha() and unicodedata.category(got)[0] in "LM"


def _starts_like(start: str, word: str, partial: bool) -> bool:
    if partial:
        if len(start) > len(word):
            return False
        pairs = zip(start, word[: len(start)], strict=True)
    else:
        if len(start) < len(word):
            return False
        pairs = zip(start[: len(word)], word, strict=True)
    return all(_same_or_lookalike(a, b) for a, b in pairs)


#: Words a label may add to a policy's name and still read as that policy's row
#: (``baseline (policy)``, ``policy:baseline``).
_POLICY_WORDS = ("policy", "policies")
#: ASCII punctuation that :data:`_ASCII_CONFUSABLE` reads as a letter (``basel|ne``).
_LETTERLIKE = frozenset("|!$")


def _is_word_char(ch: str, letterlike: bool) -> bool:
    return ch.isalnum() or unicodedata.category(ch)[0] == "M" or (letterlike and ch in _LETTERLIKE)


def _words(text: str, letterlike: bool) -> list[str]:
    """The words of ``text`` (NFKC): runs of letters, digits and marks (and, with
    ``letterlike``, of ``|``, ``!``, ``$``); everything else separates them."""
    out: list[str] = []
    current: list[str] = []
    for ch in unicodedata.normalize("NFKC", text):
        if _is_word_char(ch, letterlike):
            current.append(ch)
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return out


def _reads_as_word(got: str, want: str) -> bool:
    got, want = _skeleton(got), _skeleton(want)
    return len(got) == len(want) and all(_same_or_lookalike(a, b) for a, b in zip(got, want, strict=True))


def reads_as(text: str, names: tuple[str, ...]) -> str | None:
    """The one of ``names`` that ``text`` may be taken for, or ``None``.

    What a reader sees decides, not a list of spellings. Characters that show nothing are
    dropped (controls, format characters such as zero-width spaces and direction marks);
    then ``text`` reads as a name when its *words* are the name's words (``baseline-tuned``:
    ``baseline``, ``tuned``), with only punctuation, spaces or the word ``policy`` around or
    between them: ``baseline``, ``Baseline``, ``baseline_``, ``baseline.``, ``baseline
    (policy)``, ``policy:baseline``, ``baseline · standard``. Words compare NFKC-normalised
    and case-folded, ASCII look-alikes read as one (``basel1ne``, ``basel|ne``) and any
    non-ASCII letter as any ASCII letter (Cyrillic ``а`` for ``a``). A label with any other
    word beside the name (``gpt-baseline-v2``, ``baseline 2``, ``my baseline``) does not
    read as the policy: it names a model or a setup."""
    shown = "".join(ch for ch in str(text) if ch.isprintable() and unicodedata.category(ch) != "Cf")
    for part in {shown, shown.split("·")[0]}:
        got = _skeleton(part)
        for name in names:
            want = _skeleton(name)
            if len(got) == len(want) and all(_same_or_lookalike(a, b) for a, b in zip(got, want, strict=True)):
                return name
        for letterlike in (False, True):
            words = [w for w in _words(part, letterlike) if not any(_reads_as_word(w, p) for p in _POLICY_WORDS)]
            for name in names:
                want_words = _words(name, False)
                if len(words) == len(want_words) and all(
                    _reads_as_word(a, b) for a, b in zip(words, want_words, strict=True)
                ):
                    return name
    return None


def shown_words(text: str) -> list[str]:
    """The words a reader sees in ``text``: runs of letters, digits and marks (and ``|``,
    ``!``, ``$``, which read as letters) once invisible characters are dropped and
    blank-looking ones read as spaces (:func:`_without_marks`); decorations (``===``, box
    drawing ``═══``, brackets, dots) separate them."""
    return _words(_without_marks(text), True)


def words_read_as(words: list[str], phrase: str, *, partial: bool = False) -> bool:
    """Whether ``words`` (:func:`shown_words`) begin with the words of ``phrase`` as a reader
    takes them (look-alike letters as in :func:`lookalike_start`). ``partial``: whether more
    text could still make it so (``words`` is a line's start; its last word may be cut)."""
    want = _words(phrase, False)
    if not partial:
        return len(words) >= len(want) and all(_reads_as_word(a, b) for a, b in zip(words, want, strict=False))
    if len(words) > len(want):
        return False
    if not words:
        return True
    *whole, last = words
    return all(_reads_as_word(a, b) for a, b in zip(whole, want, strict=False)) and _starts_like(
        _skeleton(last), _skeleton(want[len(whole)]), True
    )


def lookalike_start(line: str, words: tuple[str, ...], *, partial: bool = False) -> bool:
    """Whether ``line`` starts like one of ``words`` (lower-case ASCII) after NFKC
    normalisation and case folding, any non-ASCII letter matching any ASCII letter (a
    Cyrillic or Greek look-alike) and ASCII look-alikes read as one (``lmpact``, ``1mpact``
    and ``Impact``; ``rnonth`` and ``month``). ``partial``: whether more text could still
    make it so (``line`` is the start of a word; a last ``r``, ``v`` or ``c`` may still
    become ``m``, ``w`` or ``d``)."""
    start = _skeleton(line)
    starts = (start, start[:-1]) if partial and start[-1:] in ("r", "v", "c") else (start,)
    return any(_starts_like(s, _skeleton(word), partial) for word in words for s in starts)
