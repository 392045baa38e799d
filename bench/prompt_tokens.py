"""What the harness sends the model, in tokens: the system prompt and the prompt of every call.

    python bench/prompt_tokens.py [--seed 101] [--scenario standard] [--months N]

Figures (issue 26 §3):

* system prompt: tokens of the one system prompt every call of a career sends;
* prompt tokens per call, mean and max, over a scripted baseline-like career: two calls
  a month (a short look at the desk, then the baseline's month played by functions the
  first month's reply defined), so every call carries the system prompt, the month
  message and, on the second call, the first reply and its output;
* whether the system prompt and the conversation's prefix are byte-stable across calls
  (what provider prompt caching needs).

Tokens come from a real tokenizer (``--encoding``, default ``o200k_base``): ``bpe-openai``
(the ``tokens`` extra, vocabularies in the wheel, no network) or ``tiktoken`` with its vocabulary
cached; with neither they are estimated as characters / 4, and the output says so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pibench_tui.harness.backends import Completion  # noqa: E402

BASELINE = ROOT / "examples" / "agents" / "baseline.py"

#: The first call of a month: a short look at what is on the desk, and a note.
LOOK = (
    "Let me look at what needs attention.\n\n```python\n"
    "d = lab.dashboard()\n"
    "print(d['budget'], len(d['students']), [e['kind'] for e in events.pending()])\n"
    "write_memory(f\"month {d['month']}: budget {d['budget']:.0f}; following the routine\")\n"
    "```\n"
)


def tokenizer(encoding: str = "o200k_base") -> tuple[Callable[[str], int], str]:
    """``(count, name)``: a real tokenizer when one works offline, else characters / 4.

    ``bpe-openai`` (the ``tokens`` extra: ``pip install -e '.[tokens]'``) carries the
    ``o200k_base`` and ``cl100k_base`` vocabularies in its wheel; ``tiktoken`` works too when
    its vocabulary is cached (it downloads it on first use)."""
    try:
        import bpe_openai  # type: ignore[import-not-found]

        enc = bpe_openai.get_encoding(encoding)
        return (lambda text: len(enc.encode(text))), f"bpe-openai {encoding}"
    except Exception:  # noqa: BLE001 - not installed: try tiktoken
        pass
    try:
        import tiktoken  # type: ignore[import-not-found]

        enc = tiktoken.get_encoding(encoding)
        return (lambda text: len(enc.encode(text))), f"tiktoken {encoding}"
    except Exception:  # noqa: BLE001 - not installed, or its vocabulary needs the network
        return (lambda text: len(text) // 4), "estimate: characters / 4 (no offline tokenizer)"


def baseline_definitions() -> str:
    """The baseline agent script's definitions (everything before its main loop)."""
    text = BASELINE.read_text(encoding="utf-8")
    return text[: text.index("\nresult = lab.dashboard()")] + "\n"


class RecordingBackend:
    """A scripted baseline-like PI that records every request: per month a look at the desk,
    then ``play_month()`` (defined by the first month's reply; the namespace persists)."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, str]]] = []

    def describe(self) -> dict[str, Any]:
        """The backend as result.json records it."""
        return {"backend": "scripted", "model": "baseline-like"}

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Reply to ``messages``: the look on a month's first call, the month on the second."""
        self.calls.append([dict(m) for m in messages])
        if len(messages) <= 2:
            text = LOOK
        else:
            defs = baseline_definitions() if len(self.calls) <= 2 else ""
            text = "Now the routine.\n\n```python\n" + defs + "_r = play_month()\nprint('closed', _r.get('month'))\n```"
        prompt = sum(len(m["content"]) for m in messages) // 4
        return Completion(text=text, prompt_tokens=prompt, completion_tokens=len(text) // 4)


def measure(
    seed: int = 101, scenario: str = "standard", months: int | None = None, encoding: str = "o200k_base"
) -> dict[str, Any]:
    """Play a scripted baseline-like career and measure what each call sent.

    Args:
        seed: World seed.
        scenario: Scenario name.
        months: Play only this many months (``None``: the scenario's horizon).
        encoding: The tokenizer's encoding (:func:`tokenizer`).

    Returns:
        ``{"tokenizer", "system_tokens", "system_chars", "calls", "mean_prompt_tokens",
        "max_prompt_tokens", "system_stable", "prefix_stable"}``.
    """
    import dataclasses

    from pibench_tui.harness.loop import AgentSettings, run_career
    from scenarios import load_scenario

    count, name = tokenizer(encoding)
    scen = load_scenario(scenario)
    config = scen.config if months is None else dataclasses.replace(scen.config, months=int(months))
    settings = AgentSettings(model="baseline-like", label="baseline-like", scenario=scen.name, config=config)
    backend = RecordingBackend()
    with tempfile.TemporaryDirectory() as tmp:
        run_career(settings, backend, seed, tmp, log=lambda _t: None)
    calls = backend.calls
    systems = {c[0]["content"] for c in calls}
    per_call = [sum(count(m["content"]) for m in c) for c in calls]
    # Within a month the conversation only grows: each call's messages start with the last call's.
    prefix_stable = all(
        later[: len(earlier)] == earlier for earlier, later in zip(calls, calls[1:], strict=False) if len(later) > 2
    )
    system = calls[0][0]["content"]
    return {
        "tokenizer": name,
        "system_tokens": count(system),
        "system_chars": len(system),
        "calls": len(calls),
        "mean_prompt_tokens": statistics.fmean(per_call),
        "max_prompt_tokens": max(per_call),
        "system_stable": len(systems) == 1,
        "prefix_stable": prefix_stable,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--scenario", default="standard")
    ap.add_argument("--months", type=int, default=None, help="play only this many months (default: the horizon)")
    ap.add_argument("--encoding", default="o200k_base", help="o200k_base (default) or cl100k_base")
    args = ap.parse_args(argv)
    m = measure(args.seed, args.scenario, args.months, args.encoding)
    print(f"tokens: {m['tokenizer']}")
    print(f"system prompt: {m['system_tokens']:,} tokens ({m['system_chars']:,} characters)")
    print(
        f"prompt per call over {m['calls']} calls ({args.scenario}, seed {args.seed}): "
        f"mean {m['mean_prompt_tokens']:,.0f}, max {m['max_prompt_tokens']:,} tokens"
    )
    print(
        f"system prompt byte-identical on every call: {m['system_stable']}; conversation prefix stable: "
        f"{m['prefix_stable']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
