"""Playing a plan's careers: the career list, the shared endpoint limits, the progress display.

:func:`careers_of` turns a :class:`~pibench_tui.harness.plan.Plan` into
:class:`PlannedCareer` s (seed by seed, each scenario, each model: every label gets its
first careers early), each with a backend factory that shares its endpoint's
:class:`~pibench_tui.harness.limits.EndpointLimiter`. :func:`run_planned` plays them
``jobs`` at a time in threads (the work is waiting for replies; each career has its own
world and agent process) under one :class:`PlanDisplay`. Run directories, resume and the
refusal of a finished career of other settings are :func:`~pibench_tui.harness.loop.run_career`'s.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pibench_tui.harness.limits import EndpointLimiter
from pibench_tui.harness.plan import EndpointSpec, ModelSpec, Plan
from pibench_tui.textsafe import visible
from pibench_tui.words import noun

__all__ = ["PlanDisplay", "PlannedCareer", "careers_of", "limiters_of", "make_backend_factory", "run_planned"]


@dataclass(frozen=True)
class PlannedCareer:
    """One career of a plan.

    Attributes:
        model: Its model entry (label and options).
        endpoint: Its endpoint.
        settings: Its :class:`~pibench_tui.harness.loop.AgentSettings`.
        seed: The world seed (secret when ``commitment`` is set).
        commitment: The sealed seed's commitment (``None``: public).
        name: How the seed is shown (the seed, or ``sealed:<prefix>``).
        out: The plan's output folder.
        path: Its run directory.
        make_backend: A fresh backend for it (sharing the endpoint's limiter).
        plan_sha256: SHA-256 of the plan file's text (``None``: a command without
            ``--plan``); its ``result.json`` records it (``plan``), so the copy
            ``plan-<first 12 hex digits>.toml`` in ``out`` can be checked against it.
    """

    model: ModelSpec
    endpoint: EndpointSpec
    settings: Any
    seed: int
    commitment: str | None
    name: str
    out: str
    path: Path
    make_backend: Callable[[], Any]
    plan_sha256: str | None = None

    @property
    def key(self) -> str:
        """``"label scenario seed"``: the career in progress lines."""
        return f"{self.settings.label} {self.settings.shown_scenario} {self.name}"


def limiters_of(plan: Plan, **kw: Any) -> dict[str, EndpointLimiter]:
    """One :class:`EndpointLimiter` per endpoint with limits (``kw``: ``clock``/``sleep``)."""
    return {
        name: EndpointLimiter(
            name,
            max_concurrent=ep.max_concurrent,
            requests_per_minute=ep.requests_per_minute,
            tokens_per_minute=ep.tokens_per_minute,
            **kw,
        )
        for name, ep in plan.endpoints.items()
        if ep.limited
    }


def make_backend_factory(
    model: ModelSpec,
    endpoint: EndpointSpec,
    limiter: EndpointLimiter | None,
    command_user: tuple[int, int] | None = None,
    fixed_proxy: bool = False,
) -> Callable[[], Any]:
    """A function returning a fresh backend of ``model`` on ``endpoint`` (an OpenAI-compatible
    client, or the command backend), sharing ``limiter``; ``fixed_proxy`` (a sealed run):
    the client uses the proxy pibench checked (``OpenAIBackend``). The backend raises
    ``ValueError`` on a missing key, package or command (call it once up front)."""
    from pibench_tui.harness.backends import CommandBackend, OpenAIBackend, RetryPolicy

    options = request_options(model, endpoint)
    policy = RetryPolicy(retries=endpoint.retries, base=endpoint.retry_base, timeout=endpoint.request_timeout)

    def make() -> Any:
        backend: Any
        if endpoint.command is not None:
            backend = CommandBackend(
                endpoint.command,
                user=command_user,
                model=model.model,
                temperature=model.temperature,
                max_tokens=model.max_tokens,
                policy=policy,
                options=options,
            )
        else:
            backend = OpenAIBackend(
                model.model,
                base_url=endpoint.base_url,
                api_key_env=endpoint.api_key_env,
                temperature=model.temperature,
                max_tokens=model.max_tokens,
                policy=policy,
                options=options,
                fixed_proxy=fixed_proxy,
            )
        backend.limiter = limiter
        return backend

    return make


def request_options(model: ModelSpec, endpoint: EndpointSpec) -> Any:
    """The :class:`~pibench_tui.harness.backends.RequestOptions` every request of ``model`` on
    ``endpoint`` is sent with (the model's headers over the endpoint's, names compared
    case-insensitively): one home for what is sent and what is recorded."""
    from pibench_tui.harness.backends import RequestOptions, merge_headers

    return RequestOptions(
        token_param="max_completion_tokens" if model.max_completion_tokens is not None else "max_tokens",
        send_temperature=not model.no_temperature,
        reasoning_effort=model.reasoning_effort,
        extra_body=dict(model.extra_body),
        headers=merge_headers(endpoint.headers, model.headers),
    )


def request_settings(model: ModelSpec, endpoint: EndpointSpec) -> dict[str, Any]:
    """The request options of ``model`` on ``endpoint`` that are part of its settings
    fingerprint (:meth:`~pibench_tui.harness.backends.RequestOptions.settings`: headers
    included, secret values redacted)."""
    return dict(request_options(model, endpoint).settings())


def endpoint_of(endpoint: EndpointSpec) -> str | None:
    """The ``endpoint`` setting of careers played on ``endpoint``
    (:func:`~pibench_tui.harness.backends.endpoint_setting` of its base URL, OpenAI's when
    none is given), ``None`` for a command endpoint."""
    from pibench_tui.harness.backends import endpoint_setting

    return None if endpoint.command is not None else endpoint_setting(endpoint.base_url)


def careers_of(
    plan: Plan,
    limiters: dict[str, EndpointLimiter],
    command_users: dict[str, tuple[int, int] | None] | None = None,
) -> list[PlannedCareer]:
    """Every career of ``plan``: seed by seed, each scenario, each model (file order).

    Raises:
        scenarios.ScenarioError: A scenario cannot be loaded (checked when the plan was read).
    """
    from pibench_tui.harness.loop import AgentSettings
    from pibench_tui.harness.rundir import career_dir
    from scenarios import load_scenario

    scens = [load_scenario(ref) for ref in plan.scenarios]
    sealed = plan.seeds is not None and plan.seeds.sealed
    factories = {
        m.label: make_backend_factory(
            m,
            plan.endpoints[m.endpoint],
            limiters.get(m.endpoint),
            (command_users or {}).get(m.endpoint),
            fixed_proxy=sealed,
        )
        for m in plan.models
    }
    settings = {
        (m.label, scen.name): AgentSettings(
            model=m.model,
            label=m.label,
            scenario=scen.name,
            config=scen.config,
            max_turns=m.max_turns,
            temperature=m.temperature,
            max_tokens=m.max_tokens,
            memory=m.memory,
            block_timeout=m.block_timeout,
            request=request_settings(m, plan.endpoints[m.endpoint]),
            allow_incomplete_confinement=plan.allow_incomplete_confinement,
            endpoint=endpoint_of(plan.endpoints[m.endpoint]),
        )
        for m in plan.models
        for scen in scens
    }
    spec = plan.seeds
    public = spec is None or not spec.sealed
    rows: dict[str, list[tuple[int, str | None, str]]] = {
        scen.name: (
            [(scen.seed, None, str(scen.seed))]
            if spec is None
            else [(s, None if public else spec.commitments[i], spec.label(i)) for i, s in enumerate(spec.seeds)]
        )
        for scen in scens
    }
    plan_sha = hashlib.sha256(plan.text.encode("utf-8")).hexdigest() if plan.text is not None else None
    out: list[PlannedCareer] = []
    # seed-major: the first seed of every scenario and label before the second of any
    for i in range(max(len(r) for r in rows.values())):
        for scen in scens:
            if i >= len(rows[scen.name]):
                continue
            seed, commit, name = rows[scen.name][i]
            for m in plan.models:
                s = settings[(m.label, scen.name)]
                out.append(
                    PlannedCareer(
                        model=m,
                        endpoint=plan.endpoints[m.endpoint],
                        settings=s,
                        seed=seed,
                        commitment=commit,
                        name=name,
                        out=plan.out,
                        path=career_dir(plan.out, s.label, s.scenario, None if commit else seed, commit),
                        make_backend=factories[m.label],
                        plan_sha256=plan_sha,
                    )
                )
    return out


class PlanDisplay:
    """One progress display for a whole plan (thread-safe).

    On a terminal (``stream.isatty()``): a rich progress display on ``stream`` with the
    plan's careers and months and a bar per career in play; career messages print above
    it. Otherwise plain lines: every career message, a line when a career ends, and a
    status line at most every ``interval`` seconds as months close.

    Args:
        careers: The plan's careers.
        stream: Where it writes (default stderr).
        interval: Seconds between plain status lines.
        rich: Force the rich display on (``True``) or off (``False``); ``None``: a terminal.
    """

    def __init__(
        self,
        careers: list[PlannedCareer],
        *,
        stream: TextIO | None = None,
        interval: float = 60.0,
        rich: bool | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = len(careers)
        self.months_total = sum(c.settings.config.months for c in careers)
        self.interval = interval
        self.lock = threading.Lock()
        self.months_done: dict[str, int] = {}
        self.done = self.failed = 0
        self.running: set[str] = set()
        self.started = time.monotonic()
        self._last_line = self.started
        self._last_text = ""
        isatty = getattr(self.stream, "isatty", None)
        self.rich = rich if rich is not None else bool(callable(isatty) and isatty())
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> PlanDisplay:
        if self.rich:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(file=self.stream)
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            )
            self._progress.start()
            self._careers = self._progress.add_task("careers", total=self.total)
            self._months = self._progress.add_task("months", total=self.months_total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
        else:
            self._status(force=True)

    def log(self, text: str) -> None:
        """A career's message (already made visible)."""
        if self._progress is not None:
            from rich.text import Text

            self._progress.console.print(Text(text))
            return
        with self.lock:
            print(text, file=self.stream, flush=True)

    def month(self, key: str, done: int, months: int) -> None:
        """Career ``key`` has ``done`` of its ``months`` months played."""
        with self.lock:
            before = self.months_done.get(key, 0)
            self.months_done[key] = done
            self.running.add(key)
        if self._progress is not None:
            task = self._tasks.get(key)
            if task is None:
                task = self._tasks[key] = self._progress.add_task(key, total=months)
            self._progress.update(task, completed=done)
            self._progress.advance(self._months, done - before)
            return
        self._status()

    def finished(self, key: str, months: int, ok: bool) -> None:
        """Career ``key`` ended (``ok``: it has its result; else it failed or was refused)."""
        with self.lock:
            before = self.months_done.get(key, 0)
            self.months_done[key] = months if ok else before
            self.running.discard(key)
            self.done += 1
            self.failed += not ok
        if self._progress is not None:
            task = self._tasks.pop(key, None)
            if task is not None:
                self._progress.remove_task(task)
            self._progress.advance(self._careers, 1)
            self._progress.advance(self._months, self.months_done[key] - before)
            return
        self._status(force=True)

    def line(self) -> str:
        """The plain status line: careers done, in play, failed; months; time."""
        with self.lock:
            months = sum(self.months_done.values())
            secs = int(time.monotonic() - self.started)
            failed = f", {self.failed} failed" if self.failed else ""
            return (
                f"pibench agent: {self.done}/{self.total} {noun(self.total, 'career')} done{failed}, "
                f"{len(self.running)} in play; {months:,}/{self.months_total:,} {noun(self.months_total, 'month')}; "
                f"{secs // 3600}:{secs // 60 % 60:02d}:{secs % 60:02d} elapsed"
            )

    def _status(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_line < self.interval:
            return
        self._last_line = now
        text = self.line()
        if text != self._last_text:  # the end of the last career and of the plan say the same
            self._last_text = text
            self.log(text)


def run_planned(
    careers: list[PlannedCareer],
    *,
    jobs: int,
    display: PlanDisplay,
) -> list[dict[str, Any] | Exception]:
    """Play ``careers`` (``jobs`` at a time), results in their order; a career that failed
    is represented by its exception. Ctrl-C stops every career at its next turn and raises
    ``KeyboardInterrupt``; the same plan resumes them.

    Raises:
        KeyboardInterrupt / CareerInterrupted: Stopped.
    """
    from concurrent.futures import ThreadPoolExecutor, wait

    from pibench_tui.harness.loop import CareerInterrupted, run_career

    stop = threading.Event()

    def one(c: PlannedCareer) -> dict[str, Any]:
        months = c.settings.config.months
        try:
            result = run_career(
                c.settings,
                c.make_backend(),
                c.seed,
                c.out,
                log=lambda text: display.log(visible(text, newlines=True)),
                stop=stop,
                commitment=c.commitment,
                on_month=lambda done, total: display.month(c.key, done, total),
                price=c.model.price,
                plan_sha256=c.plan_sha256,
            )
        except CareerInterrupted:
            raise
        except Exception:
            display.finished(c.key, months, ok=False)
            raise
        display.finished(c.key, int(result.get("months_played") or months), ok=True)
        return result

    results: list[dict[str, Any] | Exception] = []
    if jobs <= 1 or len(careers) <= 1:
        for c in careers:
            try:
                results.append(one(c))
            except CareerInterrupted:
                raise
            except Exception as exc:  # noqa: BLE001 - reported per career (RunConflict, SandboxStartError, OSError ...)
                results.append(exc)
        return results
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        futures = [ex.submit(one, c) for c in careers]
        try:
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.5)
        except KeyboardInterrupt:
            stop.set()  # careers in play stop at their next turn; those not started never start
            ex.shutdown(wait=True, cancel_futures=True)
            raise
        for fut in futures:
            try:
                results.append(fut.result())
            except Exception as exc:  # noqa: BLE001 - reported per career
                results.append(exc)
    return results
