"""What the read cache of a headless session does over the baseline career, per read kind
(issue 9 §3): how often agent code asked pibench, how many results pibench computed to
prefetch, how many of those it sent (a result with the bytes of the entry it would replace
is not sent: the entry stays) and how many agent code then used, with the mean size of a
prefetched result (marshal bytes). Prints figures, asserts nothing; no valgrind.

    python bench/headless_reads.py [--seed N]

A prefetched result costs pibench its API call and its marshal bytes whether or not agent
code reads it; a round trip costs both processes ~0.2 M instructions
(``bench/headless_instructions.py --trips N``): a kind pays to prefetch when it is used
often enough for its size.
"""

from __future__ import annotations

import argparse
import collections
import marshal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=101)
    args = ap.parse_args()
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
    from pibench_tui.sandbox import reads

    asked: collections.Counter[str] = collections.Counter()
    computed: collections.Counter[str] = collections.Counter()
    sent: collections.Counter[str] = collections.Counter()
    used: collections.Counter[str] = collections.Counter()
    size: collections.Counter[str] = collections.Counter()
    kind_of: dict[int, str] = {}  # id of a prefetched entry -> its kind
    refreshing = [False]

    add, refresh, told = reads.ReadMirror._add, reads.ReadMirror._refresh, reads.ReadMirror.used

    def counted_add(self: Any, text: bytes, call: list[Any], blob: bytes, old: int | None = None) -> int:
        i: int = add(self, text, call, blob, old)
        if refreshing[0] and old is None:
            kind_of[i] = f"{call[0]}.{call[1]}"
            sent[kind_of[i]] += 1
        return i

    def counted_refresh(self: Any, *a: Any) -> Any:
        refreshing[0] = True
        try:
            return refresh(self, *a)
        finally:
            refreshing[0] = False

    def counted_used(self: Any, ids: Any) -> bool:
        for i in ids if type(ids) is list else ():
            kind = kind_of.pop(i, None)  # its first use only
            if kind is not None:
                used[kind] += 1
        return bool(told(self, ids))

    reads.ReadMirror._add = counted_add  # type: ignore[method-assign]
    reads.ReadMirror._refresh = counted_refresh  # type: ignore[method-assign]
    reads.ReadMirror.used = counted_used  # type: ignore[method-assign]
    session = HeadlessSession(HeadlessOptions(seed=args.seed, block_timeout=600))
    handler = session.sandbox.handler

    def counted_handler(ns: str, method: str, a: list[Any], k: dict[str, Any]) -> Any:
        value = handler(ns, method, a, k)
        kind = f"{ns}.{method}"
        if refreshing[0]:
            computed[kind] += 1
            size[kind] += len(marshal.dumps(value, 4))
        else:
            asked[kind] += 1
        return value

    session.sandbox.handler = counted_handler
    try:
        session.run_block("1")
        result = session.run_block((ROOT / "examples" / "agents" / "baseline.py").read_text())
    finally:
        session.close()
    print(f"baseline career, seed {args.seed}: {result.calls} round trips, ok {result.ok}")
    print(f"{'read kind':24} {'asked':>6} {'computed':>9} {'sent':>6} {'used':>6} {'bytes':>7}")
    for kind in sorted(set(asked) | set(computed)):
        mean = size[kind] // computed[kind] if computed[kind] else 0
        print(f"{kind:24} {asked[kind]:6} {computed[kind]:9} {sent[kind]:6} {used[kind]:6} {mean:7}")
    print(
        f"{'all':24} {sum(asked.values()):6} {sum(computed.values()):9} {sum(sent.values()):6} {sum(used.values()):6}"
    )


if __name__ == "__main__":
    main()
