"""Size limits of API arguments, in one place (issue 10 §1; MECHANICS Decisions 9).

Every API call checks its arguments against these bounds before doing anything else, so
nothing an agent sends can make the pibench process keep, log or save more than a bounded
amount per call. A refused call raises ``ActionError("bad_argument", ...)`` naming the
argument, its size and the limit.
"""

from __future__ import annotations

MAX_STRING_CHARS = 64
"""Longest string argument: ids (``S001``, ``PDsearch3``), topics, venues, answers (characters)."""

MAX_LIST_ITEMS = 100
"""Most items in a list argument (applicant ids to interview, project members, attachments)."""

MAX_DICT_ITEMS = 100
"""Most entries in a dict argument (``students.set_mentoring({id: hours})``)."""

MAX_INT_BITS = 64
"""Largest integer argument, in bits (|n| < 2**64); months, counts and amounts are far smaller."""

MAX_CHANGES_PER_MONTH = 200
"""Most logged (world-changing) calls in one month, ``time.next_month()`` excepted.

A changing call that does change something is written to the action log; without a cap an
agent toggling a setting (mentoring 1 h, 2 h, 1 h ...) would grow the log and every save
by ~55 bytes per call, tens of MB per session. With it the log of a 60-month career stays
under ~0.7 MB whatever the agent does (a busy honest month logs a few dozen calls); past
the cap a changing call is refused (``cap_reached``) until the month is closed.
"""

LIMITS = {
    "max_string_chars": MAX_STRING_CHARS,
    "max_list_items": MAX_LIST_ITEMS,
    "max_dict_items": MAX_DICT_ITEMS,
    "max_int_bits": MAX_INT_BITS,
    "max_changes_per_month": MAX_CHANGES_PER_MONTH,
}
"""The limits by name, for documentation and front ends."""
