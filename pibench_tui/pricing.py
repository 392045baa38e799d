"""What tokens cost: ``--price NAME=IN,OUT[,CACHED]`` of ``pibench agent`` and ``pibench report``.

Prices are USD per million tokens: prompt (input), completion (output) and, optionally,
cached prompt tokens (those the provider reported as served from its prompt cache; without
a cached price they cost the prompt price). Tokens of abandoned attempts are priced like
the others: they were paid for.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

__all__ = [
    "PRICE_FORM",
    "Price",
    "career_cost",
    "cost_usd",
    "format_usd",
    "parse_price",
    "price_problem",
    "price_record",
    "timed_out_cost",
    "timed_out_prompt_estimate",
]

#: The valid form, for error messages and help.
PRICE_FORM = "NAME=IN,OUT[,CACHED] (USD per million prompt, completion and cached prompt tokens, e.g. gpt-4.1=2,8,0.5)"


class Price(NamedTuple):
    """USD per million tokens.

    Attributes:
        prompt: Prompt (input) tokens not served from a cache.
        completion: Completion (output) tokens, reasoning included.
        cached: Cached prompt tokens (``None``: the prompt price).
    """

    prompt: float
    completion: float
    cached: float | None = None


def parse_price(text: str) -> tuple[str, Price]:
    """``"gpt-4.1=2,8,0.5"`` -> ``("gpt-4.1", Price(2.0, 8.0, 0.5))``.

    Raises:
        ValueError: Naming what was wrong and the valid form (:data:`PRICE_FORM`): no ``=``,
            an empty name, not two or three numbers, a price :func:`price_problem` refuses.
    """
    name, sep, rest = text.rpartition("=")
    if not sep:
        raise ValueError(f"{text!r}: no '=' between the name and the prices; the form is {PRICE_FORM}")
    if not name.strip():
        raise ValueError(f"{text!r}: the name before '=' is empty; the form is {PRICE_FORM}")
    parts = [p.strip() for p in rest.split(",")]
    if len(parts) not in (2, 3):
        raise ValueError(
            f"{text!r}: {len(parts)} {'price' if len(parts) == 1 else 'prices'} after '=', want 2 (in, out) or 3 "
            "(in, out, cached); "
            f"the form is {PRICE_FORM}"
        )
    values = []
    for what, part in zip(("in", "out", "cached"), parts, strict=False):
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{text!r}: the {what} price {part!r} is not a number; the form is {PRICE_FORM}") from None
        values.append(value)
    problem = price_problem(values)
    if problem is not None:
        raise ValueError(f"{text!r}: {problem}; the form is {PRICE_FORM}")
    return name.strip(), Price(values[0], values[1], values[2] if len(values) == 3 else None)


#: The highest price accepted, USD per million tokens (the dearest models listed cost a few
#: hundred): a larger one is a typo, and 1e308 overflowed every cost to infinity.
MAX_PRICE = 10_000.0


def price_problem(values: list[float]) -> str | None:
    """Why prices ``[in, out]`` or ``[in, out, cached]`` (USD per million tokens) are not
    valid, or ``None``: each must be a finite number from 0 to :data:`MAX_PRICE`, and the
    cached price at most the input price (cached prompt tokens are a discount)."""
    for what, value in zip(("in", "out", "cached"), values, strict=False):
        if not math.isfinite(value) or not 0 <= value <= MAX_PRICE:
            return f"the {what} price {value!r} must be a finite number from 0 to {MAX_PRICE:,.0f}"
    if len(values) == 3 and values[2] > values[0]:
        return f"the cached price {values[2]!r} is above the in price {values[0]!r}; it must be at most the in price"
    return None


def cost_usd(price: Price, prompt: int, completion: int, cached: int | None = None) -> float:
    """USD of ``prompt`` prompt tokens (``cached`` of them from the provider's cache, when it
    reported them) and ``completion`` completion tokens at ``price``."""
    cached_n = max(0, min(int(cached or 0), int(prompt)))
    cached_price = price.prompt if price.cached is None else price.cached
    return (
        (int(prompt) - cached_n) * price.prompt + cached_n * cached_price + int(completion) * price.completion
    ) / 1e6


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def career_cost(result: dict[str, Any], price: Price) -> float:
    """USD of a finished career's ``result.json`` at ``price``: its prompt (cached ones at the
    cached price when the provider reported them) and completion tokens, plus the tokens of
    its abandoned attempts (``tokens.abandoned``: paid for, not in its counts), plus the
    estimated prompt tokens of requests abandoned at a time-out (:func:`timed_out_cost`)."""
    tok = result.get("tokens")
    tokens: dict[str, Any] = tok if isinstance(tok, dict) else {}
    raw = tokens.get("abandoned")
    ab: dict[str, Any] = raw if isinstance(raw, dict) else {}
    cached = tokens.get("cached_prompt")
    return (
        cost_usd(
            price, _count(tokens.get("prompt")), _count(tokens.get("completion")), _count(cached) if cached else None
        )
        + cost_usd(price, _count(ab.get("prompt")), _count(ab.get("completion")))
        + timed_out_cost(result, price)
    )


def timed_out_prompt_estimate(result: dict[str, Any]) -> int:
    """The prompt tokens of a ``result.json``'s requests abandoned at a time-out
    (``tokens.abandoned.timed_out.prompt_estimated``: characters / 4 of the prompts sent, an
    estimate: no usage comes back), plus those of a request in flight at a kill
    (``tokens.abandoned.in_flight.prompt_estimated``, estimated the same way), 0 when none
    is recorded."""
    tok = result.get("tokens")
    ab = tok.get("abandoned") if isinstance(tok, dict) else None
    timed = ab.get("timed_out") if isinstance(ab, dict) else None
    flight = ab.get("in_flight") if isinstance(ab, dict) else None
    return (_count(timed.get("prompt_estimated")) if isinstance(timed, dict) else 0) + (
        _count(flight.get("prompt_estimated")) if isinstance(flight, dict) else 0
    )


def timed_out_cost(result: dict[str, Any], price: Price) -> float:
    """USD of :func:`timed_out_prompt_estimate` at the prompt price (an estimate: their
    completion tokens are unknown and not priced; a provider may bill an abandoned request
    in full, in part or not at all)."""
    return cost_usd(price, timed_out_prompt_estimate(result), 0)


def price_record(price: Price) -> dict[str, Any]:
    """``price`` as ``result.json`` records it beside ``cost_usd``."""
    return {
        "prompt": price.prompt,
        "completion": price.completion,
        "cached_prompt": price.cached,
        "unit": "USD per million tokens",
    }


#: Below this a cost is shown as ``<$0.000001`` (a millionth of a dollar).
SMALLEST_USD = 1e-6


def format_usd(usd: float | None) -> str:
    """A cost for a table or a summary line: ``—`` (unknown), ``$0.00`` (nothing),
    ``$12.34``, ``$1,234`` (from $1,000), and under a cent two significant digits so a cheap
    career never reads as free (``$0.0034``, ``$0.000012``; ``<$0.000001`` below that)."""
    if usd is None or usd != usd:
        return "—"
    if usd == 0:
        return "$0.00"
    if round(usd, 2) >= 1000:
        return f"${usd:,.0f}"
    if usd < SMALLEST_USD:
        return f"<${SMALLEST_USD:.6f}"
    decimals = 1 - math.floor(math.log10(usd))  # two significant digits
    if round(usd, decimals) >= 0.01:  # $0.0099999 is $0.01, not $0.0100
        return f"${usd:,.2f}"
    return f"${usd:.{decimals}f}"
