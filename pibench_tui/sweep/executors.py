"""Where a sweep's careers run: local processes (default) or a Dask distributed cluster.

A career depends only on (policy, world parameters, seed, baseline config), so every
executor gives the same rows; only the order in which they arrive differs. Executors call
``emit(key, row, run)`` as careers finish (``run`` is the career's run-directory data when
asked for, else ``None``), which is what streams rows to the progress bar and the journal.

The Dask executor needs the optional extra ``pibench[cluster]`` (``dask[distributed]``) here
and pibench installed on every worker (the same version: a short reference career is played
on each worker and its world digest compared before any work is sent).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from world.config import WorldConfig

__all__ = [
    "SEND_SEEDS_FLAG",
    "DaskExecutor",
    "Emit",
    "Executor",
    "ExecutorError",
    "Group",
    "LocalExecutor",
    "make_executor",
    "sealed_cluster_problem",
]

#: The flag that lets sealed seeds go to a Dask cluster (:func:`sealed_cluster_problem`).
SEND_SEEDS_FLAG = "--send-seeds-to-cluster"


def sealed_cluster_problem(cluster: str | None, sealed: bool, allowed: bool) -> str | None:
    """Why sealed seeds may not be played on ``cluster``, or ``None``.

    A worker must know a seed to play its career, so a sweep on a Dask cluster sends every
    seed to the cluster's scheduler and workers: processes outside the evaluator's, possibly
    on other machines and run by other people. Sealed seeds (``--seeds @FILE``) are meant to
    stay with the evaluator until ``pibench unseal``, so the combination is refused unless
    the evaluator says the cluster is theirs (:data:`SEND_SEEDS_FLAG`); ``--jobs N`` plays
    them in local worker processes of this pibench.

    Args:
        cluster: The ``--cluster`` address (``None``: no cluster, nothing to refuse).
        sealed: The seeds come from a seal file.
        allowed: :data:`SEND_SEEDS_FLAG` was given.
    """
    if not cluster or not sealed or allowed:
        return None
    return (
        f"--cluster {cluster} with sealed seeds (--seeds @FILE) would send the sealed seeds to the Dask "
        f"cluster's scheduler and workers (a worker must know a seed to play its career), outside this "
        f"process and possibly on other machines; give {SEND_SEEDS_FLAG} if that cluster is as trusted as "
        "the seal file, or play the careers here with --jobs N"
    )


@dataclasses.dataclass(frozen=True)
class Group:
    """The careers of one row group of a sweep.

    Attributes:
        key: the group's name in tables and files (a policy, an ablation variant, a grid
            config label); unique within a sweep.
        policy: the policy name (:data:`world.policies.ALL_NAMES`).
        config: the world's parameters.
        seeds: the seeds, in table order.
        baseline_config: for ``baseline`` only, a :class:`~world.policies.BaselineConfig`.
    """

    key: str
    policy: str
    config: WorldConfig
    seeds: tuple[int, ...]
    baseline_config: Any = None


Emit = Callable[[str, dict[str, Any], "dict[str, Any] | None"], None]
"""``emit(key, row, run)``: one finished career."""


class ExecutorError(Exception):
    """The executor cannot run the sweep (no Dask installed, scheduler unreachable, no
    workers, workers running other code); the message says what to do."""


class Executor(Protocol):
    """Runs groups of careers and emits each as it finishes."""

    def run(self, groups: Sequence[Group], emit: Emit, record: bool = False) -> None:
        """Play every career of ``groups``; call ``emit`` for each as it finishes.

        Args:
            groups: the careers to play.
            emit: called once per career, in completion order.
            record: also return each career's run-directory data (``pibench run --save-runs``).
        """
        ...

    def describe(self) -> str:
        """A few words for messages: ``2 local processes``, ``Dask at tcp://...``."""
        ...


def chunk_task(
    policy: str, seeds: list[int], cfg: dict[str, Any], bcfg: Any, record: bool
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Several careers of one group in a worker (one Dask task), in seed order."""
    from world.runner import run_career

    config = WorldConfig.from_dict(cfg)
    if record:
        from .runs import recorded_career

        return [recorded_career(policy, seed, config, bcfg) for seed in seeds]
    return [(run_career(policy, seed, config, bcfg), None) for seed in seeds]


class LocalExecutor:
    """Careers in this process (``jobs`` = 1) or in ``jobs`` worker processes (no more than
    there are careers to play).

    Every group of the sweep goes through one :func:`world.runner.run_groups` call: one pool
    of workers for the whole sweep (not one per group), seeds sent in chunks, at most a few
    chunks in flight, rows streamed back as chunks finish (and not kept here). Recorded sweeps (``--save-runs``)
    play :func:`~pibench_tui.sweep.runs.recorded_career` the same way, a few careers a chunk
    (their run data is large).
    """

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = max(1, int(jobs))

    def describe(self) -> str:
        """``this process`` or ``N local processes``."""
        return "this process" if self.jobs == 1 else f"{self.jobs} local processes"

    def run(self, groups: Sequence[Group], emit: Emit, record: bool = False) -> None:
        """See :meth:`Executor.run`."""
        from world.runner import SeedGroup, run_groups

        keys = [g.key for g in groups]
        work = [SeedGroup(g.policy, g.seeds, g.config, g.baseline_config) for g in groups]
        jobs = min(self.jobs, sum(len(g.seeds) for g in groups))  # a forked pool starts every worker at once
        if not record:
            run_groups(work, jobs, lambda i, row: emit(keys[i], row, None), keep=False)
            return
        from .runs import recorded_career

        def emit_recorded(i: int, result: tuple[dict[str, Any], dict[str, Any]]) -> None:
            row, run = result
            emit(keys[i], row, run)

        run_groups(work, jobs, emit_recorded, career=recorded_career, chunk=2, keep=False)


def _reference_digest() -> str:
    """The world digest of a short reference career (baseline, 4 months, seed 1): equal on
    two machines only if they run the same world and policy code."""
    from world.engine import World
    from world.runner import build_policy, play

    world = World(WorldConfig(months=4), 1)
    play(world, build_policy("baseline", world))
    return world.digest()


def _chunks(seeds: Sequence[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(seeds), size):
        yield list(seeds[i : i + size])


class DaskExecutor:
    """Careers on a Dask distributed cluster (``dask scheduler`` + ``dask worker ADDRESS``).

    Args:
        address: the scheduler's address (``tcp://host:8786``), or a ``distributed.Client``.
        connect_timeout: seconds to reach the scheduler.
        worker_timeout: seconds to wait for a first worker.

    Seeds are sent in chunks (a few per worker thread, at most :attr:`max_chunk` careers
    each) so rows stream back as chunks finish; each task carries only names, seeds and
    the world parameters.
    """

    max_chunk = 16

    def __init__(self, address: Any, connect_timeout: float = 20.0, worker_timeout: float = 60.0) -> None:
        self.address = address
        self.connect_timeout = connect_timeout
        self.worker_timeout = worker_timeout

    def describe(self) -> str:
        """``the Dask cluster at ADDRESS``."""
        addr = (
            self.address
            if isinstance(self.address, str)
            else getattr(getattr(self.address, "scheduler", None), "address", "?")
        )
        return f"the Dask cluster at {addr}"

    def _client(self) -> tuple[Any, bool]:
        try:
            from distributed import Client as _Client
        except ImportError:
            raise ExecutorError("--cluster needs Dask: pip install 'pibench[cluster]' (dask[distributed])") from None
        if not isinstance(self.address, str):
            return self.address, False
        client_cls: Any = _Client
        try:
            return client_cls(self.address, timeout=f"{self.connect_timeout}s"), True
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(
                f"cannot reach the Dask scheduler at {self.address}: {exc}; "
                "start one with `dask scheduler` and give its address (tcp://HOST:8786)"
            ) from None

    def _check_workers(self, client: Any) -> int:
        try:
            client.wait_for_workers(1, timeout=self.worker_timeout)
        except (TimeoutError, OSError):
            raise ExecutorError(
                f"no Dask worker joined {self.describe()} within {self.worker_timeout:g} s; "
                "start workers with `dask worker ADDRESS`"
            ) from None
        here = _reference_digest()
        there = client.run(_reference_digest)
        odd = sorted(w for w, d in there.items() if d != here)
        if odd:
            raise ExecutorError(
                f"Dask worker(s) {', '.join(odd)} run other pibench code (a reference career "
                "ends in another world digest); install this pibench version on every worker"
            )
        return max(1, int(sum(client.nthreads().values())))

    def run(self, groups: Sequence[Group], emit: Emit, record: bool = False) -> None:
        """See :meth:`Executor.run`."""
        client, own = self._client()
        futures: dict[Any, str] = {}
        try:
            if not any(g.seeds for g in groups):
                return
            from distributed import as_completed as _dask_completed

            dask_completed: Any = _dask_completed

            threads = self._check_workers(client)
            total = sum(len(g.seeds) for g in groups)
            size = max(1, min(self.max_chunk, total // (4 * threads)))
            for g in groups:
                cfg = g.config.to_dict()
                for chunk in _chunks(g.seeds, size):
                    fut = client.submit(chunk_task, g.policy, chunk, cfg, g.baseline_config, record, pure=False)
                    futures[fut] = g.key
            for fut in dask_completed(list(futures)):
                key = futures.pop(fut)  # released: the cluster keeps no finished chunk
                for row, run in fut.result():
                    emit(key, row, run)
        finally:
            if futures:
                client.cancel(list(futures))
            if own:
                client.close()

    def map_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[Any]:
        """``fn(item)`` for each item on the cluster (after the same connection and worker
        checks as :meth:`run`), yielded as they finish. ``fn`` and the items must pickle.

        Raises:
            ExecutorError: The scheduler cannot be reached, no worker joins, or a worker
                runs other pibench code.
        """
        client, own = self._client()
        futures: list[Any] = []
        try:
            if not items:
                return
            from distributed import as_completed as _dask_completed

            dask_completed: Any = _dask_completed
            self._check_workers(client)
            futures = [client.submit(fn, item, pure=False) for item in items]
            for fut in dask_completed(futures):
                yield fut.result()
        finally:
            pending = [f for f in futures if not f.done()]
            if pending:
                client.cancel(pending)
            if own:
                client.close()


def make_executor(jobs: int = 1, cluster: str | None = None) -> Executor:
    """The executor of ``--jobs N`` / ``--cluster ADDRESS`` (the cluster when given)."""
    if cluster:
        return DaskExecutor(cluster)
    return LocalExecutor(jobs)
