"""The agent process's read cache, parent side (issue 9 §3: cheaper headless round trips).

The agent process answers a read-only call (same name, same arguments) from its cache when
it can; this process decides what that cache holds and keeps :class:`ReadMirror`, an exact
copy of its contents: each entry has an id, given in the reply that brings it (``"c"``: the
answer to a read-only call, kept; ``"pf"``: ``[[id, call, result], ...]`` results
prefetched, see below), and leaves when a message says so (``"x"``: ``[id, ...]``). Results
travel, and are held, as marshal bytes (:func:`pibench_tui.sandbox.process.result_bytes`).

When to drop an entry: a call that may have changed the world (and the start of a block:
the world may have moved in between) ends the validity of every entry, unless the handler
can tell which results still hold. Headless mode's can (``kept``: the result its API keeps
for a reading call, the very object it answered before while nothing it reads has changed,
:meth:`world.api.Api.kept`): an entry whose kept result is still the object this process
sent stays; the others are dropped. Nothing else is ever kept: an entry is exact for the
world as it is, or gone.

Prefetching (``prefetch``): with the answer to a change (and with a block), this process
also sends the results of the read-only calls agent code made after the same kind of change
(until it happened again, the month ended or the block ended) at least a third of the
last :data:`PLAN_TIMES` times (at most :data:`PLAN_CALLS`), asked of the handler right then,
unless the agent process still holds them. A result whose bytes are those of the entry it
would replace is not sent: the entry stays. The agent process says which entries agent code
used (``{"t": "use", "i": [id, ...]}``, each entry at most once between two changes): only
ids of entries it holds are valid; anything else is a protocol violation.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from itertools import chain
from typing import Any

#: Most read-only calls prefetched after one change, and the longest call message kept in
#: the agent process's cache (or prefetched), in characters.
PLAN_CALLS = 16
#: How many past times of a kind of change what to prefetch after it is learnt from.
PLAN_TIMES = 6
CALL_CHARS = 4096
#: Most entries the agent process's cache holds at once (the oldest leaves first).
HELD_ENTRIES = 48

Handler = Callable[[str, str, list, dict], Any]
#: ``probe(namespace, method, args, kwargs)``: a function of no arguments returning, whenever it
#: is called, what ``kept(namespace, method, args, kwargs)`` would return then; or None when
#: nothing is ever kept for that call (:meth:`world.api.Api.kept_probe`).
Prober = Callable[[str, str, list, dict], "Callable[[], Any] | None"]
#: Most probes (and bound reads) kept by call message (:attr:`ReadMirror.probes`; all are forgotten past it).
PROBES = 1024
#: ``encode(namespace, method, result)``: the result as the agent process gets it (marshal bytes).
Encoder = Callable[[str, str, Any], bytes]

_UNRESOLVED: Any = object()  # a call whose probe (or bound read) is not resolved yet


def _resolve(table: dict[bytes, Any], text: bytes, value: Any) -> Any:
    """Keep ``value`` (a probe or a bound read) for the call message ``text`` in ``table``
    (:attr:`ReadMirror.probes` or :attr:`ReadMirror.bound`), forgetting them all once the
    table holds :data:`PROBES`; returns ``value``."""
    if len(table) >= PROBES:
        table.clear()
    table[text] = value
    return value


#: The changes after which agent code's reads start over: the month end.
MONTH_END = frozenset({"time.next_month"})


class ReadMirror:
    """What the agent process's read cache holds (see the module doc), and what agent code
    read after each kind of change (to prefetch it).

    Args:
        kept: ``kept(namespace, method, args, kwargs)``: the result the handler keeps for
            that reading call now, the same object it answered while that result holds (any
            other object otherwise); ``None``: every change drops every entry.
        prefetch: Send the results agent code read after the same kind of change before.
        encode: Turns a result into what the agent process gets (marshal bytes).
        probe: ``kept`` resolved once per call (:data:`Prober`), checked after every change
            instead of ``kept`` (the same answers, without resolving the call each time);
            without it each probe calls ``kept``.
        bind: A read-only call of the handler bound once (:data:`Prober`'s shape: a function
            of no arguments answering what the handler would, or None): prefetches call it
            instead of the handler; without it (or for None) the handler is asked.
    """

    def __init__(
        self,
        kept: Handler | None,
        prefetch: bool,
        encode: Encoder,
        probe: Prober | None = None,
        bind: Prober | None = None,
    ) -> None:
        self.kept = kept
        self.prefetch = prefetch
        self.encode = encode
        if probe is None and kept is not None:
            probe = functools.partial(functools.partial, kept)  # each probe calls kept(...)
        self.probe = probe
        self.bind = bind
        #: call message -> its probe (see :data:`Prober`), at most :data:`PROBES` of them
        self.probes: dict[bytes, Callable[[], Any] | None] = {}
        #: call message -> the call bound (``bind``), at most :data:`PROBES` of them
        self.bound: dict[bytes, Callable[[], Any] | None] = {}
        #: call message (bytes, as the agent process sends it) -> (id, the value sent (for
        #: ``kept``), the call as [ns, m, args, kwargs], the result's bytes, its probe)
        self.held: dict[bytes, tuple[int, Any, list[Any], bytes, Callable[[], Any] | None]] = {}
        self.text_of: dict[int, bytes] = {}  # id -> call message, for every entry held
        self.next_id = 0
        #: What agent code read after each kind of change the last :data:`PLAN_TIMES` times:
        #: ``{"" (the start of a block) or "ns.method": [{call text: call, ...} the last
        #: time, ... the time before ...]}`` (each a closed window of :attr:`windows`).
        self.plans: dict[str, list[dict[bytes, list[Any]]]] = {}
        #: For each trigger of :attr:`plans`: how many of its times read each call text, and
        #: the call of each such text (kept as the times come and go, not counted again).
        self.counts: dict[str, dict[bytes, int]] = {}
        self.calls: dict[str, dict[bytes, list[Any]]] = {}
        #: The reads since each kind of change, until it happens again or the month ends:
        #: ``{trigger: {call message: call}}`` (see :meth:`changed`).
        self.windows: dict[str, dict[bytes, list[Any]]] = {}

    def reset(self) -> None:
        """A new agent process: its cache is empty."""
        self.held.clear()
        self.text_of.clear()

    # learning ---------------------------------------------------------------------------
    def read(self, text: bytes, call: list[Any]) -> None:
        """Agent code read ``text`` (a call message; ``call``: ``[ns, method, args, kwargs]``)
        since the last change."""
        if len(text) <= CALL_CHARS:
            for reads in self.windows.values():
                if len(reads) < PLAN_CALLS:
                    reads.setdefault(text, call)

    def used(self, ids: object) -> bool:
        """The agent process used these entries; False if that cannot be true (an id it
        does not hold, a malformed list)."""
        if type(ids) is not list:
            return False
        text_of = self.text_of
        for i in ids:
            if type(i) is not int or i not in text_of:
                return False
        for i in ids:
            text = text_of[i]
            self.read(text, self.held[text][2])
        return True

    def finish(self) -> None:
        """The block ended: keep what was read since each change."""
        self._close(list(self.windows))

    def _close(self, triggers: list[str]) -> None:
        """Keep what was read since each of ``triggers`` as what to prefetch after it next time."""
        for trigger in triggers:
            reads = self.windows.pop(trigger)
            times = self.plans.get(trigger, [])
            counts = self.counts.setdefault(trigger, {})
            calls = self.calls.setdefault(trigger, {})
            for text in reads:
                counts[text] = counts.get(text, 0) + 1
            calls.update(reads)
            if len(times) >= PLAN_TIMES:  # the oldest time leaves
                for text in times[PLAN_TIMES - 1]:
                    n = counts[text] - 1
                    if n:
                        counts[text] = n
                    else:
                        del counts[text]
                        del calls[text]
            self.plans[trigger] = [reads, *times[: PLAN_TIMES - 1]]

    def _plan(self, trigger: str) -> list[tuple[bytes, list[Any]]]:
        """The read-only calls to prefetch after ``trigger`` (``(text, call)``): those made
        after it at least a third of the last :data:`PLAN_TIMES` times (an agent's months go
        through a few shapes; a read made only now and then costs less asked than sent
        every time), the latest first (from the counts kept as the times come and go:
        :meth:`_close`)."""
        times = self.plans.get(trigger)
        if times is None:
            return []
        counts, calls, need = self.counts[trigger], self.calls[trigger], len(times) / 3
        # each text once, in the order first read, the latest time first (dict.fromkeys: C code)
        order = dict.fromkeys(chain.from_iterable(times))
        return [(text, calls[text]) for text in order if counts[text] >= need][:PLAN_CALLS]

    # what to send -------------------------------------------------------------------------
    def start_block(self, handler: Handler, deadline: float) -> tuple[list[int], list[list[Any]]]:
        """The ``x`` and ``pf`` items of a ``run`` message (``handler`` answers what is
        prefetched, by ``deadline``, a ``time.monotonic()``)."""
        self._close(list(self.windows))
        self.windows[""] = {}
        return self._refresh("", handler, deadline)

    def changed(self, trigger: str | None, handler: Handler, deadline: float) -> tuple[list[int], list[list[Any]]]:
        """A call that may have changed the world was applied (``trigger``: its
        ``"ns.method"``, or None for one not worth learning after nor prefetching for): the
        ``x`` and ``pf`` items of its reply.

        What agent code reads from now until this kind of change happens again, or the month
        ends (:data:`MONTH_END`: the reads of a month start over), or the block ends, is
        prefetched after it next time."""
        if trigger in MONTH_END:
            self._close(list(self.windows))
        elif trigger in self.windows:
            self._close([trigger])
        if trigger is not None:
            self.windows[trigger] = {}
        return self._refresh(trigger, handler, deadline)

    def keep(self, text: bytes, call: list[Any], value: Any, blob: bytes) -> tuple[int | None, list[int]]:
        """A read-only call (``text``: its message; ``call``: ``[ns, method, args, kwargs]``)
        is answered with ``value`` (``blob``: as sent): the id it is held under in the agent
        process (None: not held) and the ids that leave to make room."""
        self.read(text, call)
        if len(text) > CALL_CHARS:
            return None, []
        gone = self._make_room(1)
        old = self.held.get(text)
        if old is not None:  # the agent process asked although it held it (it may): replace it
            del self.text_of[old[0]]
            gone.append(old[0])
        i = self._add(text, call, value, blob)
        return i, gone

    def _add(self, text: bytes, call: list[Any], value: Any, blob: bytes) -> int:
        i = self.next_id
        self.next_id += 1
        probe = None
        if self.probe is not None:
            probe = self.probes.get(text, _UNRESOLVED)
            if probe is _UNRESOLVED:
                probe = _resolve(self.probes, text, self.probe(call[0], call[1], call[2], call[3]))
        self.held[text] = (i, value if probe is not None else None, call, blob, probe)
        self.text_of[i] = text
        return i

    def _bound(self, text: bytes, call: list[Any]) -> Callable[[], Any] | None:
        """The call ``text`` bound once (``bind``; None: ask the handler)."""
        if self.bind is None:
            return None
        fetch = self.bound.get(text, _UNRESOLVED)
        if fetch is _UNRESOLVED:
            fetch = _resolve(self.bound, text, self.bind(call[0], call[1], list(call[2]), dict(call[3])))
        return fetch

    def _make_room(self, n: int) -> list[int]:
        gone: list[int] = []
        held = self.held
        while held and len(held) + n > HELD_ENTRIES:
            text = next(iter(held))
            i = held.pop(text)[0]
            del self.text_of[i]
            gone.append(i)
        return gone

    def _refresh(self, trigger: str | None, handler: Handler, deadline: float) -> tuple[list[int], list[list[Any]]]:
        """Drop the entries that may no longer hold; prefetch the plan of ``trigger`` (an entry
        that no longer holds but is in the plan stays when its new result has the same bytes)."""
        held, text_of, encode = self.held, self.text_of, self.encode
        gone: list[int] = []
        stale: dict[bytes, tuple[int, Any, list[Any], bytes, Callable[[], Any] | None]] = {}  # may no longer hold
        if self.probe is None:
            gone = list(text_of)
            held.clear()
            text_of.clear()
        else:
            for text, entry in held.items():
                probe = entry[4]
                try:
                    same = probe is not None and probe() is entry[1]
                except Exception:  # noqa: BLE001 - not known to hold
                    same = False
                if not same:
                    stale[text] = entry
            for text, entry in stale.items():  # out of the mirror; they go (below) or stay (the same bytes)
                del held[text]
                del text_of[entry[0]]
        items: list[list[Any]] = []
        if self.prefetch and trigger is not None:
            plan = [item for item in self._plan(trigger) if item[0] not in held]
            for text, call in plan:
                if time.monotonic() >= deadline:
                    break
                try:
                    fetch = self._bound(text, call)
                    # (the handler may keep or change the arguments: it gets copies)
                    value = fetch() if fetch is not None else handler(call[0], call[1], list(call[2]), dict(call[3]))
                    blob = encode(call[0], call[1], value)
                except Exception:  # noqa: BLE001 - refused, failing or not plain JSON: agent code asks itself
                    continue
                old = stale.pop(text, None)
                if old is not None and blob == old[3]:  # the same bytes, the same value: the entry stays
                    held[text] = (old[0], value if old[4] is not None else None, call, blob, old[4])
                    text_of[old[0]] = text
                    continue
                if old is not None:
                    gone.append(old[0])
                gone += self._make_room(1)
                items.append([self._add(text, call, value, blob), text, blob])
        gone += [entry[0] for entry in stale.values()]
        return gone, items
