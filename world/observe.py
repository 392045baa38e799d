"""The observable database: an SQLite mirror of what the PI may see (MECHANICS §14).

The mirror lives in a private in-memory database with two connections: a writer that this
module keeps current *incrementally* (append-only logs by position, entities by the ids
that are live now, were live at the last sync, or were marked dirty), and a read-only
reader for agents (``PRAGMA query_only``, an authorizer that allows reads only, no
extension loading, an instruction budget against runaway queries). The mirror syncs before
a query only when the world changed since the last one. Nothing hidden is ever written:
no ability, quality, novelty, feasibility, hotness, crowding, climate, preferences, morale
or numeric reputation.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
import weakref
from typing import TYPE_CHECKING, Any

from . import views
from .config import TOPICS, VENUES
from .errors import ActionError

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World

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
    "lab_monthly": ["month", "budget", "reputation_standing", "students", "active_projects", "publications",
                    "citations_total", "attention_used"],
    "venues": ["name", "kind", "deadlines", "decision_delay"],
    "topics": ["name"],
}
"""The 19 tables and their columns (§14); entity tables take their columns from :data:`world.views.COLUMNS`."""

_KEYED = {"students", "applicants", "projects", "drafts", "submissions", "publications", "grant_calls", "proposals",
          "awards", "events"}
_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
ALLOWED_FUNCTIONS = frozenset("""
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
""".split())
"""SQL functions an agent query may call; anything else (``fts3_tokenizer``, ``load_extension``,
``sqlite_*`` introspection, ``randomblob``/``zeroblob`` ...) is refused by the authorizer."""
_MAX_VM_STEPS = 20_000_000  # ~ a second or two of SQLite work; longer queries are interrupted
QUERY_SECONDS = 2.0
"""Wall-clock bound of one query (seconds): expensive functions cost few VM steps each."""
MAX_VALUE_BYTES = 1_000_000
"""Largest single string or blob a query may build (SQLITE_LIMIT_LENGTH)."""
MAX_RESULT_BYTES = 8_000_000
"""Largest total result one query may return (approximate bytes of all cells)."""
_counter = itertools.count(1)
_observers: "weakref.WeakKeyDictionary[World, Observer]" = weakref.WeakKeyDictionary()


def observer_for(w: "World") -> "Observer":
    """The observable mirror of ``w`` (created on first use)."""
    obs = _observers.get(w)
    if obs is None:
        obs = Observer(w)
        _observers[w] = obs
    return obs


def _j(x: Any) -> str:
    return json.dumps(x)


def _sql_row(table: str, row: dict[str, Any]) -> tuple:
    """A :mod:`world.views` row as a tuple in :data:`SCHEMA` column order; lists and dicts as JSON text."""
    return tuple(_j(v) if isinstance(v, (list, dict)) else v for v in (row[c] for c in SCHEMA[table]))


class Observer:
    """Keeps the SQLite mirror of one world and answers read-only queries.

    Args:
        w: the world to mirror.
    """

    def __init__(self, w: "World") -> None:
        self._w = weakref.ref(w)
        uri = f"file:pibench_obs_{next(_counter)}_{id(self)}?mode=memory&cache=shared"
        self.writer = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.reader = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.reader.execute("PRAGMA query_only = ON")
        self.reader.execute("PRAGMA read_uncommitted = ON")
        self._denied: str | None = None
        self.reader.set_authorizer(self._authorize)
        self.reader.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)  # no giant strings/blobs from one call
        for table, cols in SCHEMA.items():
            pk = " PRIMARY KEY" if table in _KEYED else ""
            defs = ", ".join(f"{c}{pk if i == 0 else ''}" for i, c in enumerate(cols))
            self.writer.execute(f"CREATE TABLE {table} ({defs})")
        self.writer.executemany("INSERT INTO topics VALUES (?)", [(t,) for t in TOPICS])
        cfg = w.cfg
        self.writer.executemany("INSERT INTO venues VALUES (?, ?, ?, ?)", [
            (v, cfg.venues[v]["kind"], _j([d if d else 12 for d in cfg.venues[v]["deadlines"]]), cfg.venues[v]["delay"])
            for v in VENUES])
        self.writer.commit()
        self._pos: dict[str, int] = {t: 0 for t in ("ledger", "news", "preprint_feed", "conference_reports",
                                                    "citations_monthly", "lab_monthly", "student_reports")}
        self._live: dict[str, set[str]] = {t: set() for t in _KEYED}
        self._known: dict[str, int] = {t: 0 for t in _KEYED}  # entities mirrored so far (dicts only grow)
        self._seen_month = 0
        self._version = -1
        self.syncs = 0

    def _authorize(self, action: int, arg1: Any, arg2: Any, dbname: Any, source: Any) -> int:
        if action == sqlite3.SQLITE_FUNCTION:
            if str(arg2).lower() in ALLOWED_FUNCTIONS:
                return sqlite3.SQLITE_OK
            self._denied = f"the SQL function {arg2}() is not available"
            return sqlite3.SQLITE_DENY
        if action in _READ_ACTIONS:
            return sqlite3.SQLITE_OK
        self._denied = None
        return sqlite3.SQLITE_DENY

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
        self._append(cur, "lab_monthly", s.lab_monthly, lambda r: [
            r["month"], r["budget"], r["reputation_standing"], r["students"], r["active_projects"],
            r["publications"], r["citations_total"], r["attention_used"]])
        dirty: dict[str, set[str]] = {}
        for table, eid in w.dirty:
            dirty.setdefault(table, set()).add(eid)
        w.dirty.clear()
        month_changed = m != self._seen_month
        self._upsert(cur, "students", s.people, lambda p: p.status == "active", dirty, lambda p: views.student_row(w, p))
        y = (m - 1) // 12
        self._upsert(cur, "applicants", s.applicants,
                     lambda a: a.season_year >= y - 1 and a.status in ("pending", "offered", "accepted"), dirty, views.applicant_row)
        self._upsert(cur, "projects", s.projects, lambda p: p.status == "active", dirty, views.project_row)
        self._upsert(cur, "drafts", s.drafts, lambda d: d.status != "accepted", dirty, views.draft_row)
        self._upsert(cur, "submissions", s.submissions, lambda x: x.status == "under_review", dirty, views.submission_row)
        self._upsert(cur, "proposals", s.proposals, lambda p: p.status == "pending", dirty, views.proposal_row)
        self._upsert(cur, "events", s.events, lambda e: e.status == "pending", dirty, views.event_row)
        if month_changed:
            self._replace(cur, "publications", [views.publication_row(p) for p in views.published(w)])
            calls = [c for c in s.calls.values() if c.open_month <= m]
            self._replace(cur, "grant_calls", [views.call_row(w, c) for c in calls])
        elif "publications" in dirty:
            pubs = [s.publications[i] for i in dirty["publications"] if i in s.publications and s.publications[i].published_month <= m]
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

    def _append(self, cur: sqlite3.Cursor, table: str, rows: list, conv) -> None:
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
            cur.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({','.join('?' * ncol)})", [_sql_row(table, r) for r in rows])

    def _upsert(self, cur: sqlite3.Cursor, table: str, entities: dict, is_live, dirty: dict, row) -> None:
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
    def query(self, sql: Any) -> list[dict]:
        """One read-only SELECT/WITH statement → list of row dicts (see :meth:`Api.query`).

        Raises:
            ActionError: ``sql_error`` naming what was wrong.
        """
        if not isinstance(sql, str):
            raise ActionError("sql_error", f"query() takes an SQL string, got {type(sql).__name__}")
        if "\x00" in sql or any("\ud800" <= ch <= "\udfff" for ch in sql):
            raise ActionError("sql_error", "SQL error: the query contains a NUL or an unpaired surrogate character")
        head = sql.strip().lower()
        if not (head.startswith("select") or head.startswith("with")):
            raise ActionError("sql_error", "only SELECT queries are allowed (one SELECT or WITH statement; no PRAGMA, ATTACH or writes)")
        if not sqlite3.complete_statement(sql.strip() if sql.strip().endswith(";") else sql.strip() + ";"):
            raise ActionError("sql_error", "SQL error: incomplete statement")
        self.sync()
        w = self._w()
        limit = w.cfg.query_max_rows if w is not None else 2000
        steps = [0]
        deadline = time.monotonic() + QUERY_SECONDS

        def progress() -> int:
            steps[0] += 1
            return 1 if steps[0] * 100 > _MAX_VM_STEPS or time.monotonic() > deadline else 0

        self.reader.set_progress_handler(progress, 100)
        try:
            self._denied = None
            cur = self.reader.execute(sql)
            cols = [d[0] for d in cur.description] if cur.description else []
            rows: list[tuple] = []
            size = 0
            while len(rows) <= limit:
                chunk = cur.fetchmany(min(200, limit + 1 - len(rows)))
                if not chunk:
                    break
                for r in chunk:
                    size += sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in r)
                if size > MAX_RESULT_BYTES:
                    raise ActionError("sql_error", f"SQL error: the result is larger than {MAX_RESULT_BYTES // 1_000_000} MB; "
                                      "select fewer columns or rows, or aggregate")
                rows.extend(chunk)
            extra = 0
            if len(rows) > limit:
                extra = 1 + sum(1 for _ in itertools.islice(cur, 100_000))
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise ActionError("sql_error", f"SQL error: the query ran too long (over {QUERY_SECONDS:g} s or too many steps) "
                                  "and was stopped; add a LIMIT or simplify it") from None
            if "not authorized" in str(exc) or "prohibited" in str(exc):
                if self._denied:
                    raise ActionError("sql_error", f"SQL error: {self._denied}; use core SQL functions (aggregates, "
                                      "string, math, date and json functions, window functions)") from None
                raise ActionError("sql_error", "SQL error: only reading the observable tables is allowed (no PRAGMA, ATTACH or writes)") from None
            raise ActionError("sql_error", f"SQL error: {exc}") from None
        except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError, MemoryError) as exc:
            raise ActionError("sql_error", f"SQL error: {type(exc).__name__}: {exc}") from None
        finally:
            self.reader.set_progress_handler(None, 0)
        out = [dict(zip(cols, r)) for r in rows[:limit]]
        if extra:
            total = limit + extra
            more = "+" if extra > 100_000 else ""
            out.append({"_truncated": f"showing {limit} of {total}{more} rows; use LIMIT/OFFSET or aggregate"})
        return out

    def tables(self) -> dict[str, list[str]]:
        """Table name → column names."""
        return {t: list(c) for t, c in SCHEMA.items()}
