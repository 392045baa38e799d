"""The agent process's read cache, parent side (issue 9 §3: cheaper headless round trips).

The agent process answers a read-only call (same name, same arguments) from its cache when
it can; this process decides what that cache holds and keeps :class:`ReadMirror`, an exact
copy of its contents: each entry has an id, given in the reply that brings it (``"c"``: the
answer to a read-only call, kept; ``"pf"``: ``[[id, call, result], ...]`` results
prefetched, see below), and leaves when a message says so (``"x"``: ``[id, ...]``). Results
travel, and are held, as marshal bytes (:func:`pibench_tui.sandbox.process.result_bytes`).

When to drop an entry: an entry is valid for the world's version it was sent at (``version``:
the world moves it with every change, :mod:`world.api.cached`). After a call that may have
changed the world, and at the start of a block (the world may have moved in between), the
entries of another version are dropped, unless prefetching sends the same bytes again (then
the entry stays, valid for the new version). Without ``version`` every change drops every
entry. Nothing else is ever kept: an entry is exact for the world as it is, or gone.

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
#: Most entries the agent process's cache holds at once, and most bytes of their results
#: (marshal bytes, also held here: the oldest leave first).
HELD_ENTRIES = 48
HELD_BYTES = 8 << 20

Handler = Callable[[str, str, list, dict], Any]
#: ``encode(namespace, method, result)``: the result as the agent process gets it (marshal bytes).
Encoder = Callable[[str, str, Any], bytes]


#: The changes after which agent code's reads start over: the month end.
MONTH_END = frozenset({"time.next_month"})


class ReadMirror:
    """What the agent process's read cache holds (see the module doc), and what agent code
    read after each kind of change (to prefetch it).

    Args:
        version: Returns the world's version (moved by every change); ``None``: every
            change drops every entry.
        prefetch: Send the results agent code read after the same kind of change before.
        encode: Turns a result into what the agent process gets (marshal bytes).
    """

    def __init__(self, version: Callable[[], int] | None, prefetch: bool, encode: Encoder) -> None:
        self.version = version
        self.prefetch = prefetch
        self.encode = encode
        #: call message (bytes, as the agent process sends it) -> (id, the world's version it
        #: is valid for (None: none), the call as [ns, m, args, kwargs], the result's bytes)
        self.held: dict[bytes, tuple[int, int | None, list[Any], bytes]] = {}
        self.held_bytes = 0  # of the results held
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
        self.held_bytes = 0

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

    def keep(self, text: bytes, call: list[Any], blob: bytes) -> tuple[int | None, list[int]]:
        """A read-only call (``text``: its message; ``call``: ``[ns, method, args, kwargs]``)
        is answered with ``blob`` (the result as sent): the id it is held under in the agent
        process (None: not held) and the ids that leave to make room."""
        self.read(text, call)
        if len(text) > CALL_CHARS or len(blob) > HELD_BYTES:
            return None, []
        gone = []
        old = self.held.pop(text, None)
        if old is not None:  # the agent process asked although it held it (it may): replace it
            del self.text_of[old[0]]
            self.held_bytes -= len(old[3])
            gone.append(old[0])
        gone += self._make_room(len(blob))
        i = self._add(text, call, blob)
        return i, gone

    def _add(self, text: bytes, call: list[Any], blob: bytes, i: int | None = None) -> int:
        """Hold ``blob`` for ``text`` under id ``i`` (None: a new id), valid for the version now."""
        if i is None:
            i = self.next_id
            self.next_id += 1
        self.held[text] = (i, None if self.version is None else self.version(), call, blob)
        self.held_bytes += len(blob)
        self.text_of[i] = text
        return i

    def _make_room(self, size: int) -> list[int]:
        """Drop the oldest entries until one more of ``size`` bytes fits; their ids."""
        gone: list[int] = []
        held = self.held
        while held and (len(held) + 1 > HELD_ENTRIES or self.held_bytes + size > HELD_BYTES):
            text = next(iter(held))
            entry = held.pop(text)
            self.held_bytes -= len(entry[3])
            del self.text_of[entry[0]]
            gone.append(entry[0])
        return gone

    def _refresh(self, trigger: str | None, handler: Handler, deadline: float) -> tuple[list[int], list[list[Any]]]:
        """Drop the entries of another version than the world's now; prefetch the plan of
        ``trigger`` (an entry that no longer holds but is in the plan stays when its new result
        has the same bytes)."""
        held, text_of, encode = self.held, self.text_of, self.encode
        now = None if self.version is None else self.version()
        stale: dict[bytes, tuple[int, int | None, list[Any], bytes]] = {}  # may no longer hold
        for text, entry in held.items():
            if now is None or entry[1] != now:
                stale[text] = entry
        for text, entry in stale.items():  # out of the mirror; they go (below) or stay (the same bytes)
            del held[text]
            del text_of[entry[0]]
            self.held_bytes -= len(entry[3])
        gone: list[int] = []
        items: list[list[Any]] = []
        if self.prefetch and trigger is not None:
            plan = [item for item in self._plan(trigger) if item[0] not in held]
            for text, call in plan:
                if time.monotonic() >= deadline:
                    break
                try:
                    # (the handler may keep or change the arguments: it gets copies)
                    blob = encode(call[0], call[1], handler(call[0], call[1], list(call[2]), dict(call[3])))
                except Exception:  # noqa: BLE001 - refused, failing or not plain JSON: agent code asks itself
                    continue
                if len(blob) > HELD_BYTES:
                    continue
                old = stale.pop(text, None)
                if old is not None and blob == old[3]:  # the same bytes, the same value: the entry stays
                    gone += self._make_room(len(blob))
                    self._add(text, call, blob, old[0])
                    continue
                if old is not None:
                    gone.append(old[0])
                gone += self._make_room(len(blob))
                items.append([self._add(text, call, blob), text, blob])
        gone += [entry[0] for entry in stale.values()]
        return gone, items
