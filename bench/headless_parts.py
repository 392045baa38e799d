"""Where the instructions of the baseline career through headless mode go, part by part, in
each process (issue 9 §3; prints figures, asserts nothing).

    python bench/headless_parts.py

The baseline block (``examples/agents/baseline.py``, seed 101) runs once in a warm session
(the block compiled by a first one) and what crosses the pipes is recorded: the agent
process's messages and pibench's frames. Each side is then played again alone from the
recording under callgrind (``PYTHONHASHSEED=0``), and only the instructions inside one part
are counted (its calls run inside libc's ``qsort``, :func:`_callgrind.in_qsort`; what
that wrapping costs, counted on an empty call, is taken off):

* pibench, the world's answers: the tick (``World.next_month``), every call of agent code
  answered (the tick included), the reads prefetched for the agent process's cache;
* pibench, the transport: results turned into marshal bytes, the read cache's checks of
  what still holds (the world version asked), and the rest (messages read and framed, the read
  cache's bookkeeping: the whole replay less the parts above);
* the agent process: ``marshal.loads`` of results (a fresh object for each answer), the
  rest (agent code and its calls);
* in-process: the career and its tick (``world.runner.run_career``, warm).

The replays are checked against the recording (the same messages, the same world digest).
A few minutes under valgrind.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
TREE = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind when loaded by path

from _callgrind import counted, in_qsort, in_qsort_result  # noqa: E402

SEED = 101


def _code() -> str:
    return (TREE / "examples" / "agents" / "baseline.py").read_text()


def _session() -> Any:
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    session = HeadlessSession(HeadlessOptions(seed=SEED, block_timeout=1800))
    session.run_block("1")
    return session


def record(folder: str) -> None:
    """Play the block in a warm session; keep the agent process's messages and pibench's frames."""
    from pibench_tui.sandbox import process

    warm = _session()
    warm.run_block(_code())
    warm.close()
    session = _session()
    messages: list[bytes] = []
    frames: list[bytes] = []
    recv, send_frame = process.AgentProcess.recv, process.AgentProcess.send_frame

    def recording_recv(self: Any, deadline: float) -> dict:
        msg = recv(self, deadline)
        messages.append(self.last)
        return msg

    def recording_send(self: Any, data: bytes, deadline: float) -> None:
        frames.append(data)
        send_frame(self, data, deadline)

    process.AgentProcess.recv = recording_recv
    process.AgentProcess.send_frame = recording_send
    try:
        result = session.run_block(_code())
    finally:
        process.AgentProcess.recv = recv
        process.AgentProcess.send_frame = send_frame
    digest = session.world.digest()
    session.close()
    if not result.ok:
        raise SystemExit(f"the baseline block failed: {result.error}")
    with open(os.path.join(folder, "record.pkl"), "wb") as fh:
        pickle.dump({"messages": messages, "frames": frames, "digest": digest, "calls": result.calls}, fh)


#: Calls made through :func:`_counted` in this process (printed at the end of a part).
CALLS = [0]


def _counted(fn: Any) -> Any:
    """``fn`` whose every call runs inside ``qsort`` (counted)."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        CALLS[0] += 1
        return in_qsort_result(fn, *args, **kwargs)

    return counted


class _Replayed:
    """The agent process as pibench sees it, played from the recording."""

    def __init__(self, real: Any, messages: list[bytes]) -> None:
        from pibench_tui.sandbox.process import _SCAN

        self.proc, self.ready, self.messages, self.i, self.last, self._scan = real.proc, True, messages, 0, b"", _SCAN
        self.confinement = real.confinement

    def pending(self) -> bool:
        return False

    def send_frame(self, data: bytes, deadline: float) -> None:
        pass

    def hold(self) -> None:
        """The real process is stopped between blocks (``AgentProcess.hold``); nothing to stop here."""

    def take_observed(self) -> list[tuple[str, str]]:
        """What pibench observed of the process around the block (``AgentProcess.take_observed``): nothing here."""
        return []

    def recv(self, deadline: float, *args: Any, **kwargs: Any) -> dict:
        self.last = self.messages[self.i]
        self.i += 1
        return self._scan(self.last[:-1].decode("utf-8"), 0)[0]


def pibench_part(folder: str, part: str) -> None:
    """In valgrind: pibench's side of the block from the recording, ``part`` counted."""

    with open(os.path.join(folder, "record.pkl"), "rb") as fh:
        rec = pickle.load(fh)
    warm = _session()
    warm.run_block(_code())  # compiled (and checked) once, as in the recording
    warm.close()
    session = _session()
    sandbox = session.sandbox
    real = sandbox._process
    replayed = _Replayed(real, rec["messages"])
    sandbox._process = replayed
    handler = sandbox.handler
    mirror = sandbox._reads
    refresh = mirror._refresh

    def prefetching_with(prefetch_handler: Any) -> None:
        """The read cache prefetches through ``prefetch_handler`` (``_converse`` hands it
        ``sandbox.handler``, which the "answered" part counts)."""
        mirror._refresh = lambda trigger, _h, deadline: refresh(trigger, prefetch_handler, deadline)

    if part == "tick":
        session.world.next_month = _counted(session.world.next_month)
    elif part == "answered":
        sandbox.handler = _counted(handler)
        prefetching_with(handler)
    elif part == "prefetched":
        prefetching_with(_counted(handler))
    elif part == "marshal":
        mirror.encode = _counted(mirror.encode)
        sandbox._encode = _counted(sandbox._encode)
    elif part == "version" and mirror.version is not None:
        mirror.version = _counted(mirror.version)
    results: list[Any] = []
    if part == "whole":
        in_qsort(lambda: results.append(sandbox.run(_code())))
    else:
        results.append(sandbox.run(_code()))
    sandbox._process = real
    digest = session.world.digest()
    session.close()
    if replayed.i != len(rec["messages"]) or results[0].calls != rec["calls"]:
        raise SystemExit(
            f"the replay left the recording: a part changed what pibench does ({replayed.i} of"
            f" {len(rec['messages'])} messages read, {results[0].calls} calls answered of {rec['calls']})"
        )
    if digest != rec["digest"]:  # valgrind hides AVX-512: a world that depends on numpy's SIMD kernels differs
        raise SystemExit(
            "the replayed world differs from the recorded one (the same messages): the world depends on"
            " something the machine or valgrind changes (numpy's SIMD kernels?) or a part changed it"
        )


class _Channel:
    """pibench as the agent process sees it, played from the recording (its frames)."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames, self.i, self.sent = frames, 1, bytearray()  # frames[0]: the block's run message

    @staticmethod
    def unframe(data: bytes) -> dict:
        import marshal

        return marshal.loads(data[data.index(b"\n") + 1 :])

    def send(self, msg: dict) -> None:
        from pibench_tui.sandbox import child

        self.send_raw(child._json_encode(msg).encode("utf-8", "replace") + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.sent += data

    def recv(self) -> dict:
        self.i += 1
        return self.unframe(self.frames[self.i - 1])


def agent_part(folder: str, part: str) -> None:
    """In valgrind: the agent process's side of the block from the recording, ``part`` counted."""
    from pibench_tui.sandbox import child, spec_from_api_calls
    from world.api import API_CALLS, REQUIRED, call_docs
    from world.config import WorldConfig
    from world.rules import rules

    with open(os.path.join(folder, "record.pkl"), "rb") as fh:
        rec = pickle.load(fh)
    if part == "loads":
        child._marshal_loads = _counted(child._marshal_loads)  # the results' loads (the channel has its own)
    config = WorldConfig()
    channel = _Channel(rec["frames"])
    init = {
        "t": "init",
        "spec": spec_from_api_calls(API_CALLS, REQUIRED, call_docs(config)),
        "max_output": 20_000,
        "seed": SEED,
        "memory_limit": 0,
        "limits": rules(config)["harness"],
    }
    runtime = child._Runtime(channel, init)  # type: ignore[arg-type]
    run = channel.unframe(rec["frames"][0])
    if part == "whole":
        in_qsort(lambda: runtime.run(run))
    else:
        runtime.run(run)
    if bytes(channel.sent) != b"".join(rec["messages"]) or channel.i != len(rec["frames"]):
        raise SystemExit("the agent replay left the recording: a part changed what the agent process does")


def empty_calls(n: int) -> None:
    """In valgrind: ``n`` counted calls of a function that does nothing (the wrapping's cost)."""
    nothing = _counted(lambda: None)
    for _ in range(n):
        nothing()


def in_process(part: str) -> None:
    """In valgrind: the in-process career (warm), whole or its tick."""
    from world import runner
    from world.engine import World

    runner.run_career("baseline", SEED)
    if part == "tick":
        World.next_month = _counted(World.next_month)
        runner.run_career("baseline", SEED)
    else:
        in_qsort(lambda: runner.run_career("baseline", SEED))


def count(args: list[str]) -> tuple[int, int]:
    """Instructions counted inside qsort by this script run with ``args`` under callgrind,
    and the calls it counted one by one."""
    total, stdout = counted([sys.executable, str(HERE), *args], env={"PYTHONPATH": str(TREE)})
    calls = re.search(r"counted calls (\d+)", stdout)
    if not calls:
        raise SystemExit(f"the measured run counted no calls:\n{stdout[-2000:]}")
    return total, int(calls.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", nargs=3, metavar=("SIDE", "FOLDER", "PART"), help=argparse.SUPPRESS)  # a counted replay
    args = ap.parse_args()
    if args.part:
        side, folder, part = args.part
        if side == "pibench":
            pibench_part(folder, part)
        elif side == "agent":
            agent_part(folder, part)
        elif side == "empty":
            empty_calls(int(part))
        else:
            in_process(part)
        print(f"counted calls {CALLS[0]}")
        return
    with tempfile.TemporaryDirectory() as folder:
        record(folder)
        empty, calls = count(["--part", "empty", folder, "1000"])
        wrap = empty / calls  # one counted call's own cost
        with open(os.path.join(folder, "record.pkl"), "rb") as fh:
            trips = pickle.load(fh)["calls"]

        def measured(side: str, name: str) -> float:
            instructions, calls = count(["--part", side, folder, name])
            return (instructions - wrap * calls) / 1e6

        ip_whole, ip_tick = measured("inprocess", "whole"), measured("inprocess", "tick")
        whole, tick, answered = (
            measured("pibench", "whole"),
            measured("pibench", "tick"),
            measured("pibench", "answered"),
        )
        prefetched, marshal_, kept = (
            measured("pibench", "prefetched"),
            measured("pibench", "marshal"),
            measured("pibench", "version"),
        )
        agent_whole, loads = measured("agent", "whole"), measured("agent", "loads")
    print(f"baseline career, seed {SEED}, {trips} round trips (M instructions, callgrind)")
    print(
        f"  in-process                          {ip_whole:7.1f}  (the tick {ip_tick:.1f}, the rest {ip_whole - ip_tick:.1f})"
    )
    print(f"  headless, pibench                   {whole:7.1f}")
    print(f"    the tick                          {tick:7.1f}")
    print(f"    calls answered, less the tick     {answered - tick:7.1f}")
    print(f"    reads prefetched                  {prefetched:7.1f}")
    print(f"    results to marshal bytes          {marshal_:7.1f}")
    print(f"    version checks                    {kept:7.1f}")
    rest = whole - answered - prefetched - marshal_ - kept
    print(f"    the rest (transport, read cache)  {rest:7.1f}")
    print(f"  headless, agent process             {agent_whole:7.1f}")
    print(f"    marshal.loads of results          {loads:7.1f}")
    print(f"    the rest (agent code, its calls)  {agent_whole - loads:7.1f}")
    total = whole + agent_whole
    print(f"  headless in all                     {total:7.1f}  ({total / ip_whole:.2f}x in-process)")


if __name__ == "__main__":
    main()
