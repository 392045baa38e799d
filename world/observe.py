"""The observable database: an SQLite mirror of what the PI may see (MECHANICS §14).

The mirror lives in a private in-memory database with two connections: a writer that this
module keeps current *incrementally* (append-only logs by position, entities by the ids
that are live now, were live at the last sync, or were marked dirty), and a read-only
reader (:mod:`world.sqlworker`: ``PRAGMA query_only``, an authorizer that allows reads and
the listed functions only, SQLite's size limits, a time and step budget). For agent code
(:meth:`Observer.isolate`) queries run in a query worker process that the OS bounds in time,
memory and disk instead. The mirror syncs before a query only when the world changed since
the last one. Nothing hidden is ever written:
no ability, quality, novelty, feasibility, hotness, crowding, climate, preferences, morale
or numeric reputation.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from . import sqlworker as _sq
from . import views
from .config import TOPICS, VENUES
from .errors import ActionError

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World
    from .state import Entity

E = TypeVar("E", bound="Entity")

SCHEMA: dict[str, list[str]] = {
    "students": list(views.COLUMNS["students"]),
    "student_reports": ["student_id", "month", "report_quality", "meeting_sentiment"],
    "applicants": list(views.COLUMNS["applicants"]),
    "projects": list(views.COLUMNS["projects"]),
    "drafts": list(views.COLUMNS["drafts"]),
    "submissions": list(views.COLUMNS["submissions"]),
    "publications": list(views.COLUMNS["publications"]),
    "citations_monthly": ["publication_id", "month", "citations"],
    "grant_calls": list(views.COLUMNS["grant_calls"]),
    "proposals": list(views.COLUMNS["proposals"]),
    "awards": list(views.COLUMNS["awards"]),
    "ledger": ["month", "category", "amount", "note"],
    "news": ["month", "kind", "topic", "text"],
    "preprint_feed": ["month", "topic", "preprint_count"],
    "conference_reports": ["month", "venue", "topic", "accepted_papers"],
    "events": list(views.COLUMNS["events"]),
    "lab_monthly": [
        "month",
        "budget",
        "reputation_standing",
        "students",
        "active_projects",
        "publications",
        "citations_total",
        "attention_used",
    ],
    "venues": ["name", "kind", "deadlines", "decision_delay"],
    "topics": ["name"],
}
"""The 19 tables and their columns (§14); entity tables take their columns from :data:`world.views.COLUMNS`."""

_KEYED = {
    "students",
    "applicants",
    "projects",
    "drafts",
    "submissions",
    "publications",
    "grant_calls",
    "proposals",
    "awards",
    "events",
}
ALLOWED_FUNCTIONS = frozenset(
    """
abs avg count group_concat max min sum total string_agg
coalesce ifnull iif nullif typeof likely unlikely likelihood
length lower upper ltrim rtrim trim replace substr substring instr printf format quote char unicode
hex glob like round sign random
date time datetime julianday strftime unixepoch current_date current_time current_timestamp
row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10 log2 mod pi pow power
radians sin sinh sqrt tan tanh trunc
json json_array json_array_length json_extract json_insert json_object json_patch json_quote json_remove
json_replace json_set json_type json_valid json_group_array json_group_object -> ->>
""".split()
)
"""SQL functions an agent query may call; anything else (``fts3_tokenizer``, ``load_extension``,
``sqlite_*`` introspection, ``randomblob``/``zeroblob`` ...) is refused by the authorizer."""
QUERY_SECONDS = _sq.QUERY_SECONDS
"""Wall-clock bound of one query (seconds)."""
MAX_VALUE_BYTES = _sq.MAX_VALUE_BYTES
"""Largest single string or blob a query may build (SQLITE_LIMIT_LENGTH)."""
MAX_RESULT_BYTES = _sq.MAX_RESULT_BYTES
"""Largest total result one query may return (approximate bytes of all cells)."""
MAX_SQL_CHARS = _sq.MAX_SQL_CHARS
"""Longest SQL text accepted (characters)."""
_counter = itertools.count(1)


def _j(x: Any) -> str:
    return json.dumps(x)


def _sql_row(table: str, row: dict[str, Any]) -> tuple[Any, ...]:
    """A :mod:`world.views` row as a tuple in :data:`SCHEMA` column order; lists and dicts as JSON text."""
    return tuple(_j(v) if isinstance(v, (list, dict)) else v for v in (row[c] for c in SCHEMA[table]))


class Observer:
    """Keeps the SQLite mirror of one world and answers read-only queries.

    Args:
        w: the world to mirror.
    """

    def __init__(self, w: World) -> None:
        self._w = weakref.ref(w)
        uri = f"file:pibench_obs_{next(_counter)}_{id(self)}?mode=memory&cache=shared"
        self.writer = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.reader = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.reader.execute("PRAGMA read_uncommitted = ON")
        self._denied = [""]
        _sq.configure_reader(self.reader, ALLOWED_FUNCTIONS, self._denied)
        self.worker: _sq.QueryWorker | None = None
        self.deadline: Callable[[], float | None] | None = None
        for table, cols in SCHEMA.items():
            pk = " PRIMARY KEY" if table in _KEYED else ""
            defs = ", ".join(f"{c}{pk if i == 0 else ''}" for i, c in enumerate(cols))
            self.writer.execute(f"CREATE TABLE {table} ({defs})")
        self.writer.executemany("INSERT INTO topics VALUES (?)", [(t,) for t in TOPICS])
        cfg = w.cfg
        self.writer.executemany(
            "INSERT INTO venues VALUES (?, ?, ?, ?)",
            [
                (
                    v,
                    cfg.venues[v]["kind"],
                    _j([d if d else 12 for d in cfg.venues[v]["deadlines"]]),
                    cfg.venues[v]["delay"],
                )
                for v in VENUES
            ],
        )
        self.writer.commit()
        self._pos: dict[str, int] = {
            t: 0
            for t in (
                "ledger",
                "news",
                "preprint_feed",
                "conference_reports",
                "citations_monthly",
                "lab_monthly",
                "student_reports",
            )
        }
        self._live: dict[str, set[str]] = {t: set() for t in _KEYED}
        self._known: dict[str, int] = {t: 0 for t in _KEYED}  # entities mirrored so far (dicts only grow)
        self._seen_month = 0
        self._version = -1
        self.syncs = 0

    # ------------------------------------------------------------------ sync
    def sync(self) -> None:
        """Bring the mirror up to date with the world (no-op if nothing changed)."""
        w = self._w()
        if w is None or (w.version == self._version and not w.dirty):
            return
        s = w.s
        cur = self.writer.cursor()
        m = s.month
        # append-only logs
        self._append(cur, "ledger", s.ledger, lambda r: r)
        self._append(cur, "news", s.news, lambda r: r)
        self._append(cur, "preprint_feed", s.preprints, lambda r: r)
        self._append(cur, "conference_reports", s.conference_reports, lambda r: r)
        self._append(cur, "citations_monthly", s.citations_monthly, lambda r: r)
        self._append(cur, "student_reports", s.student_reports, lambda r: r)
        self._append(
            cur,
            "lab_monthly",
            s.lab_monthly,
            lambda r: [
                r["month"],
                r["budget"],
                r["reputation_standing"],
                r["students"],
                r["active_projects"],
                r["publications"],
                r["citations_total"],
                r["attention_used"],
            ],
        )
        dirty: dict[str, set[str]] = {}
        for table, eid in w.dirty:
            dirty.setdefault(table, set()).add(eid)
        w.dirty.clear()
        month_changed = m != self._seen_month
        self._upsert(
            cur, "students", s.people, lambda p: p.status == "active", dirty, lambda p: views.student_row(w, p)
        )
        y = (m - 1) // 12
        self._upsert(
            cur,
            "applicants",
            s.applicants,
            lambda a: a.season_year >= y - 1 and a.status in ("pending", "offered", "accepted"),
            dirty,
            views.applicant_row,
        )
        self._upsert(
            cur, "projects", s.projects, lambda p: p.status == "active", dirty, lambda p: views.project_row(w, p)
        )
        self._upsert(cur, "drafts", s.drafts, lambda d: d.status != "accepted", dirty, views.draft_row)
        self._upsert(
            cur, "submissions", s.submissions, lambda x: x.status == "under_review", dirty, views.submission_row
        )
        self._upsert(cur, "proposals", s.proposals, lambda p: p.status == "pending", dirty, views.proposal_row)
        self._upsert(cur, "events", s.events, lambda e: e.status == "pending", dirty, views.event_row)
        if month_changed:
            self._replace(cur, "publications", [views.publication_row(p) for p in views.published(w)])
            calls = [c for c in s.calls.values() if c.open_month <= m]
            self._replace(cur, "grant_calls", [views.call_row(w, c) for c in calls])
        elif "publications" in dirty:
            pubs = [
                s.publications[i]
                for i in dirty["publications"]
                if i in s.publications and s.publications[i].published_month <= m
            ]
            self._replace(cur, "publications", [views.publication_row(p) for p in pubs])
        n_awards = self._pos.get("awards", 0)
        if len(s.awards) > n_awards:
            rows = list(s.awards.values())[n_awards:]
            self._replace(cur, "awards", [views.award_row(a) for a in rows])
            self._pos["awards"] = len(s.awards)
        self.writer.commit()
        self._seen_month = m
        self._version = w.version
        self.syncs += 1

    def _append(self, cur: sqlite3.Cursor, table: str, rows: list[Any], conv: Callable[[Any], Sequence[Any]]) -> None:
        start = self._pos[table]
        if len(rows) > start:
            ncol = len(SCHEMA[table])
            cur.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * ncol)})", [conv(r) for r in rows[start:]])
            self._pos[table] = len(rows)

    @staticmethod
    def _replace(cur: sqlite3.Cursor, table: str, rows: list[dict[str, Any]]) -> None:
        """INSERT OR REPLACE :mod:`world.views` rows into ``table``."""
        if rows:
            ncol = len(SCHEMA[table])
            cur.executemany(
                f"INSERT OR REPLACE INTO {table} VALUES ({','.join('?' * ncol)})", [_sql_row(table, r) for r in rows]
            )

    def _upsert(
        self,
        cur: sqlite3.Cursor,
        table: str,
        entities: dict[str, E],
        is_live: Callable[[E], bool],
        dirty: dict[str, Any],
        row: Callable[[E], dict[str, Any]],
    ) -> None:
        live_now = {eid for eid, e in entities.items() if is_live(e)}
        ids = live_now | self._live[table] | dirty.get(table, set())
        if len(entities) > self._known[table]:  # created since the last sync, maybe already not live
            ids |= set(itertools.islice(entities, self._known[table], None))
            self._known[table] = len(entities)
        if ids:
            order = [eid for eid in entities if eid in ids]
            self._replace(cur, table, [row(entities[eid]) for eid in order])
        self._live[table] = live_now

    # ------------------------------------------------------------------ query
    def query(self, sql: Any) -> list[dict[str, Any]]:
        """One read-only SELECT/WITH statement → list of row dicts (see :meth:`Api.query`).

        Raises:
            ActionError: ``sql_error`` naming what was wrong.
        """
        if not isinstance(sql, str):
            raise ActionError("sql_error", f"query() takes an SQL string, got {type(sql).__name__}")
        if len(sql) > MAX_SQL_CHARS:
            raise ActionError(
                "sql_error",
                f"SQL error: the query is {len(sql):,} characters long; at most {MAX_SQL_CHARS:,} are accepted",
            )
        if "\x00" in sql or any("\ud800" <= ch <= "\udfff" for ch in sql):
            raise ActionError("sql_error", "SQL error: the query contains a NUL or an unpaired surrogate character")
        head = sql.strip().lower()
        if not (head.startswith("select") or head.startswith("with")):
            raise ActionError(
                "sql_error",
                "only SELECT queries are allowed (one SELECT or WITH statement; no PRAGMA, ATTACH or writes)",
            )
        if not sqlite3.complete_statement(sql.strip() if sql.strip().endswith(";") else sql.strip() + ";"):
            raise ActionError("sql_error", "SQL error: incomplete statement")
        self.sync()
        w = self._w()
        limit = w.cfg.query_max_rows if w is not None else 2000
        seconds = QUERY_SECONDS
        end = self.deadline() if self.deadline is not None else None
        if end is not None:
            seconds = min(seconds, end - time.monotonic())
            if seconds <= 0:
                raise ActionError("sql_error", "SQL error: no time is left in this block for a query")
        try:
            if self.worker is not None:
                res = self.worker.query(sql, limit, seconds, self.syncs, self.writer.serialize)
            else:
                res = _sq.run_select(self.reader, sql, limit, seconds, self._denied)
        except _sq.QueryRefused as exc:
            raise ActionError("sql_error", exc.message) from None
        cols, rows, extra = res["cols"], res["rows"], res["extra"]
        out = [dict(zip(cols, r, strict=True)) for r in rows[:limit]]
        if extra:
            total = limit + extra
            more = "" if res.get("counted", True) else "+"
            out.append({"_truncated": f"showing {limit} of {total}{more} rows; use LIMIT/OFFSET or aggregate"})
        return out

    def isolate(self, deadline: Callable[[], float | None] | None = None) -> None:
        """Run this world's queries in a query worker process from now on (agent code):
        the OS bounds their time, memory and disk (see :mod:`world.sqlworker`).

        Args:
            deadline: Returns the ``time.monotonic()`` by which a query must end (the
                running block's deadline), or ``None`` for no deadline beyond
                :data:`QUERY_SECONDS`.
        """
        if self.worker is None:
            self.worker = _sq.QueryWorker(ALLOWED_FUNCTIONS)
            weakref.finalize(self, self.worker.stop)
        self.deadline = deadline

    def worker_confinement(self) -> dict[str, Any] | None:
        """What the query worker proved of its OS confinement (``world.sqlworker.confine_worker``'s
        report; the least complete of the workers started), ``None`` until one answered."""
        return None if self.worker is None else self.worker.confinement

    def take_worker_incidents(self) -> list[tuple[str, str]]:
        """``(integrity kind, message)`` pibench saw of the query worker since the last call
        (a kill by its seccomp filter: ``sandbox_violation``)."""
        return [] if self.worker is None else self.worker.take_incidents()

    def close(self) -> None:
        """Stop the query worker, if any."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None

    def tables(self) -> dict[str, list[str]]:
        """Table name → column names."""
        return {t: list(c) for t, c in SCHEMA.items()}
