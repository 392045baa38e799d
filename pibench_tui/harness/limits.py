"""Per-endpoint request limits shared by every career that uses the endpoint (``--plan``).

An evaluation plan (:mod:`pibench_tui.harness.plan`) may give an endpoint a most number of
requests in flight at once, of requests a minute and of tokens a minute. Every career of
the plan that talks to that endpoint (whatever its model or label) goes through one
:class:`EndpointLimiter`, so the provider sees the sum of them within its limits. Each
*attempt* of a call is one request: the backend's retries wait here too.

The minute limits are sliding windows of 60 seconds. A request counts in the window from
the moment it starts, and its 60 seconds run from the moment it *ends*: the endpoint may
receive a request late (a slow network, a busy client), so counting from the start could
let it see more than the limit in its own 60 s; counted from the end, request ``k + limit``
never starts before request ``k`` was answered plus 60 s. A request's tokens are not known
until it is answered, so it reserves an estimate (its prompt's characters / 4) when it
starts and the estimate is replaced by the usage the endpoint reports (prompt + completion
tokens) when it ends. A 429 answer's ``Retry-After`` pauses every career of the
endpoint for that long (the career that met it waits anyway: its retry obeys the header).

A short plain class (no rate-limiting library is installed with pibench): a
:class:`threading.Condition` guards the counters; the clock and the sleep can be replaced
(tests drive a fake clock).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["WINDOW", "EndpointLimiter", "Slot", "estimate_tokens"]

#: Seconds of the sliding window of ``requests_per_minute`` and ``tokens_per_minute``.
WINDOW = 60.0


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """A request's prompt tokens before it is sent: its characters / 4 (at least 1)."""
    return max(1, sum(len(m.get("content") or "") for m in messages) // 4)


@dataclass
class Slot:
    """One admitted request: set ``tokens`` to what it really used (``None``: keep the
    estimate, e.g. the endpoint reported no usage or the attempt failed)."""

    estimate: int
    tokens: int | None = None


class EndpointLimiter:
    """Requests in flight, requests a minute and tokens a minute of one endpoint.

    Args:
        name: The endpoint's name (in messages).
        max_concurrent: Most requests in flight at once (``None``: no limit).
        requests_per_minute: Most requests started in any 60 s (``None``: no limit).
        tokens_per_minute: Most tokens (prompt + completion) of the requests started in
            any 60 s (``None``: no limit). A single request estimated above it is still
            admitted once the window is empty (else it could never run).
        clock: Seconds, monotonic (default :func:`time.monotonic`).
        sleep: With a replaced ``clock``: how to wait ``s`` seconds of it (a fake clock's
            sleep advances it). ``None``: wait on the condition (real time).

    Attributes:
        admitted: ``[start time, tokens]`` of every admitted request, in order (tokens: the
            estimate until the request ends, then what it used).
        max_in_flight: The most requests seen in flight at once.
    """

    def __init__(
        self,
        name: str,
        *,
        max_concurrent: int | None = None,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.name = name
        self.max_concurrent = max_concurrent
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._sleep = sleep
        self._cond = threading.Condition()
        self._in_flight = 0
        # [time, tokens, ended] of the requests in the window: time is the start while in
        # flight (never expires), the end once ended (expires 60 s later)
        self._window: list[list[float]] = []
        self._paused_until = 0.0
        self.admitted: list[list[float]] = []
        self.max_in_flight = 0

    def describe(self) -> str:
        """``"4 at once, 60 requests/min, 200,000 tokens/min"`` (the limits set), or ``"no limits"``."""
        parts = []
        if self.max_concurrent is not None:
            parts.append(f"{self.max_concurrent} at once")
        if self.requests_per_minute is not None:
            parts.append(f"{self.requests_per_minute:,} requests/min")
        if self.tokens_per_minute is not None:
            parts.append(f"{self.tokens_per_minute:,} tokens/min")
        return ", ".join(parts) or "no limits"

    def pause(self, seconds: float) -> None:
        """Start no request for ``seconds`` (a 429's ``Retry-After``), for every career."""
        with self._cond:
            self._paused_until = max(self._paused_until, self._clock() + max(0.0, seconds))

    def _wait_for(self, now: float, estimate: int) -> float | None:
        """Seconds until a request of ``estimate`` tokens may start (0: now; ``None``: when
        a request in flight ends). Called with the lock held."""
        self._window = [e for e in self._window if not (e[2] and e[0] <= now - WINDOW)]
        if self.max_concurrent is not None and self._in_flight >= self.max_concurrent:
            return None
        # ended requests in the order they leave the window; in-flight ones never leave
        leaving = sorted((e for e in self._window if e[2]), key=lambda e: e[0])
        waits = [self._paused_until, self._rpm_free_at(leaving), self._tpm_free_at(leaving, estimate)]
        if any(w is None for w in waits):
            return None
        return max(0.0, *(w - now for w in waits if w is not None))

    def _rpm_free_at(self, leaving: list[list[float]]) -> float | None:
        """When the window has room for one more request (``-inf``: now; ``None``: not
        before a request in flight ends)."""
        if self.requests_per_minute is None or len(self._window) < self.requests_per_minute:
            return -math.inf
        k = len(self._window) - self.requests_per_minute  # this many must leave first
        return leaving[k][0] + WINDOW if k < len(leaving) else None

    def _tpm_free_at(self, leaving: list[list[float]], estimate: int) -> float | None:
        """When the window has room for ``estimate`` more tokens (all of it has left at
        worst, so a request estimated above the limit still runs alone)."""
        limit = self.tokens_per_minute
        used = sum(e[1] for e in self._window)
        if limit is None or not self._window or used + estimate <= limit:
            return -math.inf
        alone = len(leaving) == len(self._window)  # nothing in flight: the window can empty
        for ended, tokens, _ in leaving:
            used -= tokens
            if used + estimate <= limit or (alone and used <= 0):
                return ended + WINDOW
        return None

    @contextmanager
    def slot(self, estimate: int) -> Iterator[Slot]:
        """Wait until a request of ``estimate`` tokens may start, hold its place while it runs.

        The body is the request; set the yielded :class:`Slot`'s ``tokens`` to what it used.
        """
        with self._cond:
            while True:
                now = self._clock()
                wait = self._wait_for(now, estimate)
                if wait == 0.0:
                    break
                if self._sleep is not None and wait is not None:
                    self._cond.release()
                    try:
                        self._sleep(wait)
                    finally:
                        self._cond.acquire()
                else:
                    self._cond.wait(wait)
            entry = [now, float(estimate), 0.0]
            self._window.append(entry)
            record = [now, float(estimate)]
            self.admitted.append(record)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        slot = Slot(estimate)
        try:
            yield slot
        finally:
            with self._cond:
                if slot.tokens is not None:
                    entry[1] = record[1] = float(slot.tokens)
                entry[0], entry[2] = self._clock(), 1.0  # its 60 s run from its end
                self._in_flight -= 1
                self._cond.notify_all()
