"""Benchmark: what an agent process that floods the protocol costs pibench (issue 25 §4).

Agent code that escaped the Python layer (here: the test-only ``static_check=False``, as in
tests/headless/test_confinement.py) writes raw protocol lines on its own pipe to pibench.
For each flood this prints the peak resident memory (VmHWM) of *this* process, which plays
pibench's part (a fresh interpreter per flood, so each peak is its own), the wall time, and
what the block's result says. Figures, not assertions.

Run: ``python bench/protocol_flood.py [flood ...]`` (default: all).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

#: Agent code reaching the real ``os`` past the Python layer (static check off).
ESCAPE = (
    "def _real(name):\n"
    "    for c in ().__class__.__base__.__subclasses__():\n"
    "        if c.__name__ == '_wrap_close':\n"
    "            return c.__init__.__globals__['sys'].modules[name]\n"
    "os = _real('os')\n"
    "def w(data):\n"
    "    view = memoryview(data)\n"
    "    while view:\n"
    "        view = view[os.write(1, view):]\n"
)

MIB = 1 << 20

FLOODS: dict[str, str] = {
    # One line without an end, 1 GiB long: refused once the limit is buffered.
    "endless-line": 'chunk = b\'x\' * (1 << 20)\nw(b\'{"t":"out","s":"\')\nfor _ in range(1024):\n    w(chunk)\n',
    # One output message just under the limit.
    "big-output": 'w(b\'{"t":"out","s":"\' + b\'x\' * (LIMIT - 64) + b\'"}\\n\')\n',
    # A call whose arguments are just under the limit of tiny containers ([{},{},...]).
    "containers": 'n = (LIMIT - 64) // 3\nw(b\'{"t":"call","ns":"lab","m":"dashboard","a":[\' + b\'{},\' * n + b\'{}],"k":{}}\\n\')\n',
    # Deeply nested lists just under the limit.
    "nesting": 'n = (LIMIT - 64) // 2\nw(b\'{"t":"call","ns":"lab","m":"x","a":\' + b\'[\' * n + b\']\' * n + b\',"k":{}}\\n\')\n',
    # 64 output messages of 1 MiB each.
    "many-outputs": 'line = b\'{"t":"out","s":"\' + b\'y\' * (1 << 20) + b\'"}\\n\'\nfor _ in range(64):\n    w(line)\n',
}


def _run_one(name: str) -> dict:
    from pibench_tui.sandbox import Sandbox
    from pibench_tui.sandbox.protocol import MAX_MESSAGE_BYTES

    def hwm() -> int:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))

    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=60, static_check=False) as sb:
        sb.run("x = 1")
        before = hwm()
        start = time.monotonic()
        result = sb.run(ESCAPE + f"LIMIT = {MAX_MESSAGE_BYTES}\n" + FLOODS[name])
        wall = time.monotonic() - start
        after = hwm()
    error = result.error or {}
    return {
        "flood": name,
        "limit_mib": round(MAX_MESSAGE_BYTES / MIB, 2),
        "peak_rss_mib": round(after / 1024, 1),
        "peak_rise_mib": round((after - before) / 1024, 1),
        "wall_s": round(wall, 2),
        "error": f"{error.get('type')}: {str(error.get('message'))[:120]}" if error else None,
        "code": error.get("code"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flood", nargs="*", help=f"floods to run (default: all): {', '.join(FLOODS)}")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(_run_one(args.one)), flush=True)
        return
    unknown = [name for name in args.flood if name not in FLOODS]
    if unknown:
        ap.error(f"unknown flood {', '.join(unknown)}; floods: {', '.join(FLOODS)}")
    for name in args.flood or list(FLOODS):
        subprocess.run([sys.executable, __file__, "--one", name], check=False)


if __name__ == "__main__":
    main()
