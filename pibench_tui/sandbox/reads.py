"""The agent process's read cache, parent side (issue 9 §3: cheaper headless round trips).

The agent process answers a read-only call (same name, same arguments) from its cache when
it can; this process decides what that cache holds and keeps :class:`ReadMirror`, an exact
copy of its contents: each entry has an id, given in the reply that brings it (``"c"``: the
answer to a read-only call, kept; ``"pf"``: ``[[id, call text, value], ...]`` results
prefetched, see below), and leaves when a message says so (``"x"``: ``[id, ...]``).

When to drop an entry: a call that may have changed the world (and the start of a block:
the world may have moved in between) ends the validity of every entry, unless the handler
can tell which results still hold. Headless mode's can (``kept``: the result its API keeps
for a reading call, the very object it answered before while nothing it reads has changed,
:meth:`world.api.Api.kept`): an entry whose kept result is still the object this process
sent stays; the others are dropped. Nothing else is ever kept: an entry is exact for the
world as it is, or gone.

Prefetching (``prefetch``): with the answer to a change (and with a block), this process
also sends the results of the read-only calls agent code made after the same kind of change
the last two times (at most :data:`PLAN_CALLS`), asked of the handler right then, unless
the agent process still holds them. The agent process says which entries agent code used
(``{"t": "use", "i": [id, ...]}``, each entry at most once between two changes): only ids of
entries it holds are valid; anything else is a protocol violation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pibench_tui.sandbox.process import _DECODER, _ENCODER

#: Most read-only calls prefetched after one change, and the longest call message kept in
#: the agent process's cache (or prefetched), in characters.
PLAN_CALLS = 12
CALL_CHARS = 4096
#: Most entries the agent process's cache holds at once (the oldest leaves first).
HELD_ENTRIES = 48

Handler = Callable[[str, str, list, dict], Any]


class ReadMirror:
    """What the agent process's read cache holds (see the module doc), and what agent code
    read after each kind of change (to prefetch it).

    Args:
        kept: ``kept(namespace, method, args, kwargs)``: the result the handler keeps for
            that reading call now, the same object it answered while that result holds (any
            other object otherwise); ``None``: every change drops every entry.
        prefetch: Send the results agent code read after the same kind of change before.
    """

    def __init__(self, kept: Handler | None, prefetch: bool) -> None:
        self.kept = kept
        self.prefetch = prefetch
        #: call text -> (id, the value sent (for ``kept``), the call as [ns, m, args, kwargs])
        self.held: dict[str, tuple[int, Any, list[Any]]] = {}
        self.text_of: dict[int, str] = {}  # id -> call text, for every entry held
        self.next_id = 0
        #: What agent code read after each kind of change the last two times: ``{"" (the
        #: start of a block) or "ns.method": ([call text, ...] the last time, [...] the time before)}``.
        self.plans: dict[str, tuple[list[str], list[str]]] = {}
        self.trigger: str | None = ""  # the last change (``""``: the block's start; None: learn nothing)
        self.epoch: dict[str, None] = {}  # call texts read since it, in order

    def reset(self) -> None:
        """A new agent process: its cache is empty."""
        self.held.clear()
        self.text_of.clear()

    # learning ---------------------------------------------------------------------------
    def read(self, text: str) -> None:
        """Agent code read ``text`` (a call message) since the last change."""
        if len(text) <= CALL_CHARS:
            self.epoch[text] = None

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
            self.epoch[text_of[i]] = None
        return True

    def finish(self) -> None:
        """The block ended: keep what was read since the last change."""
        if self.trigger is not None:
            self._learn(self.trigger)

    def _learn(self, trigger: str) -> None:
        last = self.plans.get(trigger)
        self.plans[trigger] = (list(self.epoch)[:PLAN_CALLS], last[0] if last else [])

    def _plan(self, trigger: str) -> list[str]:
        """The read-only calls to prefetch after ``trigger``: those made after it either of
        the last two times (an agent's months alternate between a few shapes)."""
        last, before = self.plans.get(trigger, ((), ()))
        return list(dict.fromkeys([*last, *before]))[:PLAN_CALLS]

    # what to send -------------------------------------------------------------------------
    def start_block(self, handler: Handler, deadline: float) -> tuple[list[int], list[str]]:
        """The ``x`` and encoded ``pf`` items of a ``run`` message (``handler`` answers what
        is prefetched, by ``deadline``, a ``time.monotonic()``)."""
        self.trigger = ""
        self.epoch = {}
        return self._refresh("", handler, deadline)

    def changed(self, trigger: str | None, handler: Handler, deadline: float) -> tuple[list[int], list[str]]:
        """A call that may have changed the world was applied (``trigger``: its
        ``"ns.method"``, or None for one not worth learning after nor prefetching for): the
        ``x`` and encoded ``pf`` items of its reply."""
        if self.trigger is not None:
            self._learn(self.trigger)
        self.trigger = trigger
        self.epoch = {}
        return self._refresh(trigger, handler, deadline)

    def keep(self, text: str, call: list[Any], value: Any) -> tuple[int | None, list[int]]:
        """A read-only call (``text``: its message; ``call``: ``[ns, method, args, kwargs]``)
        is answered with ``value``: the id it is held under in the agent process (None: not
        held) and the ids that leave to make room."""
        self.read(text)
        if len(text) > CALL_CHARS:
            return None, []
        gone = self._make_room(1)
        old = self.held.get(text)
        if old is not None:  # the agent process asked although it held it (it may): replace it
            del self.text_of[old[0]]
            gone.append(old[0])
        i = self._add(text, call, value)
        return i, gone

    def _add(self, text: str, call: list[Any], value: Any) -> int:
        i = self.next_id
        self.next_id += 1
        self.held[text] = (i, value if self.kept is not None else None, call)
        self.text_of[i] = text
        return i

    def _make_room(self, n: int) -> list[int]:
        gone: list[int] = []
        held = self.held
        while held and len(held) + n > HELD_ENTRIES:
            text = next(iter(held))
            i = held.pop(text)[0]
            del self.text_of[i]
            gone.append(i)
        return gone

    def _refresh(self, trigger: str | None, handler: Handler, deadline: float) -> tuple[list[int], list[str]]:
        """Drop the entries that may no longer hold; prefetch the plan of ``trigger``."""
        held, text_of, kept = self.held, self.text_of, self.kept
        gone: list[int] = []
        if kept is None:
            gone = list(text_of)
            held.clear()
            text_of.clear()
        else:
            for text, (i, value, call) in list(held.items()):
                try:
                    same = kept(call[0], call[1], call[2], call[3]) is value
                except Exception:  # noqa: BLE001 - not known to hold
                    same = False
                if not same:
                    del held[text]
                    del text_of[i]
                    gone.append(i)
        items: list[str] = []
        if self.prefetch and trigger is not None:
            plan = [text for text in self._plan(trigger) if text not in held]
            if plan:
                gone += self._make_room(len(plan))
                for text in plan:
                    if time.monotonic() >= deadline:
                        break
                    try:
                        call = _DECODER.decode(text)  # the arguments afresh: the handler may keep or change them
                        ns, m, a, k = call["ns"], call["m"], call["a"], call["k"]
                        value = handler(ns, m, a, k)
                        encoded = _ENCODER.encode(value)
                    except Exception:  # noqa: BLE001 - refused, failing or not plain JSON: agent code asks itself
                        continue
                    stored = [ns, m, list(a), dict(k)] if self.kept is not None else []
                    i = self._add(text, stored, value)
                    items.append(f"[{i},{_ENCODER.encode(text)},{encoded}]")
        return gone, items
