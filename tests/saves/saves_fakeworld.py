"""A tiny stand-in world for store tests that do not need the real rules.

It has the surface the store uses (``to_state``, ``from_state``, ``digest``, ``month``,
``finished``, ``collapsed``, ``config``, ``seed``) and a state big or odd enough to exercise
the JSON normalisation.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


class FakeConfig:
    def __init__(self, months: int = 60) -> None:
        self.months = months

    def to_dict(self) -> dict:
        return {"months": self.months, "start_budget": 600000.0}


class FakeWorld:
    def __init__(self, seed: int = 1, month: int = 1, size: int = 10) -> None:
        self.seed = seed
        self.config = FakeConfig()
        rng = np.random.default_rng(seed)
        self.state = {
            "seed": seed,
            "month": month,
            "ledger": [
                {"month": i % 60 + 1, "amount": float(x), "note": f"S{i}"}
                for i, x in enumerate(rng.normal(0, 1000, size))
            ],
            "rng": rng.bit_generator.state,
            "memory": "notes: ünïcödé ✓ 研究",
            "action_log": [[1, "recruit.offer", ["APP001"], {}]],
        }

    @property
    def month(self) -> int:
        return self.state["month"]

    finished = False
    collapsed = False

    def to_state(self) -> dict:
        return json.loads(json.dumps(self.state))

    @classmethod
    def from_state(cls, state: dict) -> FakeWorld:
        w = cls.__new__(cls)
        w.state = json.loads(json.dumps(state))
        w.seed = state["seed"]
        w.config = FakeConfig()
        return w

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.state, sort_keys=True).encode()).hexdigest()
