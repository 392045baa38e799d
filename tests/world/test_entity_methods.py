"""The entity classes' ``__repr__`` and ``__eq__`` (Entity's, from the field list, for
start-up time) behave as the ones the dataclass decorator generates."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import pytest

from world.config import WorldConfig
from world.engine import World
from world.runner import build_policy, play
from world.state import ENTITY_TYPES


def _standard(etype: type) -> type:
    """The same fields under the standard decorator (repr and eq generated)."""
    return dataclasses.make_dataclass(
        etype.__name__,
        [
            (f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory))
            for f in dataclasses.fields(etype)
        ],
    )


def test_entities_of_a_career_compare_and_print_as_standard_dataclasses():
    """Every entity of a played career prints as the standard dataclass of its fields
    prints, equals a copy of itself (copy, deepcopy, pickle, a rebuild from its dict) and
    differs from one with a field changed; another class or kind never equals it; it is
    unhashable, as a dataclass with eq."""
    world = World(WorldConfig(months=24), 5)
    play(world, build_policy("baseline", world))
    seen = set()
    for name, etype in ENTITY_TYPES.items():
        std = _standard(etype)
        for entity in getattr(world.s, name).values():
            seen.add(name)
            data = entity.to_dict()
            assert repr(entity) == repr(std(**data))
            for clone in (copy.copy(entity), copy.deepcopy(entity), pickle.loads(pickle.dumps(entity)), etype(**data)):
                assert clone == entity and not (clone != entity)
            assert entity != std(**data) and entity != data
            changed = dataclasses.replace(entity, id=entity.id + "x")
            assert changed != entity
            with pytest.raises(TypeError, match="unhashable"):
                hash(entity)
    assert {"people", "projects", "drafts", "events"} <= seen


def test_entity_equality_compares_fields_as_tuples():
    """As in the generated ``__eq__`` (a tuple comparison), a field holding the very same
    object compares equal even when that object is not equal to itself (NaN)."""
    from world.state import Person

    nan = math.nan
    fields = dict.fromkeys(("ability", "speed", "resilience", "independence", "growth", "skill", "stipend"), 0.5)
    a = Person(id="P1", name="A", role="phd", arrived_month=1, morale=nan, **fields)
    assert a.morale != copy.copy(a).morale  # NaN is not equal to itself ...
    assert a == copy.copy(a)  # ... but the same object in the same field compares equal
    assert a != Person(id="P1", name="A", role="phd", arrived_month=1, morale=math.nan * 1, **fields)
