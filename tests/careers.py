"""Careers for tests: a reference policy played through the API, month by month."""

from __future__ import annotations

from typing import Any

from world.api import Api
from world.engine import World
from world.policies import make_policy


def play_to(world: World, months: int, policy: str = "ambitious") -> tuple[Api, Any]:
    """Play ``policy`` (a name of :data:`world.policies.ALL_NAMES`) on ``world`` through a plain
    :class:`~world.api.Api` until the opening of month ``months`` or the career's end, closing
    each month the policy left open. Returns ``(api, policy)`` to go on with."""
    api, pol = Api(world), make_policy(policy)
    while world.month < months and not world.finished:
        m = world.month
        pol.act(api)
        if not world.finished and world.month == m:
            api.time.next_month()
    return api, pol
