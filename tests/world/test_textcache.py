"""The incremental JSON text of world states (world.textcache): the digest and the saves
re-encode only what changed from month to month, and the text is always byte for byte the
one-shot ``json.dumps``, whatever changed (issue 9 §3: autosave within 4 ms a month)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from world.api import Api
from world.config import WorldConfig
from world.engine import World
from world.policies import make_policy
from world.textcache import BLOCK, TextCache, fingerprint, is_plain


def one_shot(value, *, sort_keys):
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), allow_nan=True)


def plain_digest(world: World) -> str:
    blob = json.dumps(world.state_view(report=False), sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def busy_months(months: int):
    """A busy lab (the ambitious policy, money no object), yielded after every month."""
    world = World(WorldConfig.from_dict({"start_budget": 100_000_000.0}), 101)
    api, pol = Api(world), make_policy("ambitious")
    while world.month <= months and not world.finished:
        m = world.month
        pol.act(api)
        if not world.finished and world.month == m:
            api.time.next_month()
        yield world


def test_cached_text_is_the_one_shot_text_month_after_month():
    """Over 30 busy months, both key orders: the cache's text equals json.dumps every month,
    and from the second month on most pieces are reused rather than encoded again."""
    caches = {True: TextCache(sort_keys=True), False: TextCache(sort_keys=False)}
    reused = []
    for world in busy_months(30):
        view = world.state_view()
        for sort_keys, cache in caches.items():
            assert cache.dumps(view) == one_shot(view, sort_keys=sort_keys)
        reused.append(caches[True].encoded < len(caches[True]._pieces) / 2)
    assert all(reused[5:])


def test_world_digest_is_the_one_shot_digest_after_every_kind_of_change():
    """World.digest() (cached from its second call) equals the hash of json.dumps after months
    of play and after edits the cache must notice although `==` cannot: an int for an equal
    float, True for 1, -0.0 for 0.0, a tuple for a list, in entries written long ago."""
    world = None
    for world in busy_months(24):
        assert world.digest() == plain_digest(world)
    assert world is not None and world.s.ledger and len(world.s.ledger) > BLOCK
    row = world.s.ledger[1]
    for value in (5, 5.0, True, 1, -0.0, 0.0):
        row[2] = value
        assert world.digest() == plain_digest(world)
    world.s.news[0] = tuple(world.s.news[0])
    assert world.digest() == plain_digest(world)
    world.s.budget = float("nan")  # the digest allows NaN (json writes NaN)
    assert world.digest() == plain_digest(world)


def test_values_json_cannot_take_as_they_are_fall_back_to_the_one_shot_encoder():
    """A dict with non-string keys where the state is split, or NaN when NaN is refused, makes
    dumps() return None (the caller then uses json.dumps and its own errors); the cache
    is left as it was."""
    cache = TextCache(allow_nan=False)
    big = {"log": [[i, float(i)] for i in range(3 * BLOCK)], "n": 1}
    assert cache.dumps(big) == one_shot(big, sort_keys=False)
    assert cache.dumps({"log": big["log"], 1: "x"}) is None
    assert cache.dumps({"log": big["log"] + [[0, float("nan")]]}) is None
    assert cache.dumps(big) == one_shot(big, sort_keys=False)
    assert cache.encoded == 0  # nothing had to be encoded again


def test_numpy_values_are_never_served_from_the_cache():
    """numpy scalars are not plain data (marshal writes their buffer as bytes, so a float64
    and an int64 with the same bytes would look alike): their pieces are encoded every time
    and the text follows the value's type."""
    default = lambda v: v.item()  # noqa: E731 - as the saves' numpy fallback does
    cache = TextCache(default=default)
    as_float = np.float64(1.0)
    as_int = np.frombuffer(as_float.tobytes(), dtype=np.int64)[0]
    assert fingerprint(as_float) == fingerprint(as_int) and not is_plain(as_float)
    value = {"log": [[i] for i in range(3 * BLOCK)] + [[as_float]]}
    assert cache.dumps(value) == json.dumps(value, separators=(",", ":"), default=default)
    value["log"][-1] = [as_int]
    assert cache.dumps(value) == json.dumps(value, separators=(",", ":"), default=default)
    assert cache.dumps(value).endswith(f"[{int(as_int)}]]}}")


@pytest.mark.parametrize("value", [1, 1.0, True, None, "1", [1], (1,), {"1": 1}, -0.0])
def test_fingerprints_tell_apart_what_equality_confuses(value):
    """The fingerprint of each of these differs from every other's, although several are == ."""
    others = [1, 1.0, True, None, "1", [1], (1,), {"1": 1}, -0.0, 0.0]
    same = [o for o in others if fingerprint(o) == fingerprint(value)]
    assert len(same) == 1 and type(same[0]) is type(value)


def test_one_pass_gives_the_save_text_and_the_digest():
    """World.digest_and_state_text: from one pass of a cache, the digest equals the one-shot
    digest and the text equals json.dumps of the state, month after month and after edits
    (a type-only change in an old entry, a new key in a split dict); a value the text
    refuses (NaN) gives None."""
    cache = TextCache(allow_nan=False)
    world = None
    for world in busy_months(20):
        digest, text = world.digest_and_state_text(cache)
        assert digest == plain_digest(world) and text == one_shot(world.state_view(), sort_keys=False)
    assert world is not None
    world.s.ledger[2][2] = int(world.s.ledger[2][2])
    world.s.eval_log["zeta"] = [1, 2]
    world.s.eval_log["alpha"] = {"b": 1, "a": 2}
    digest, text = world.digest_and_state_text(cache)
    assert digest == plain_digest(world) and text == one_shot(world.state_view(), sort_keys=False)
    world.s.budget = float("nan")
    assert world.digest_and_state_text(cache) is None
