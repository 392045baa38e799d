"""WorldConfig's field methods (built from its field list, not compiled from generated
source, for start-up time) behave as the standard ``@dataclass(frozen=True)`` ones."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from world.config import WorldConfig


def _standard() -> type:
    """The same fields under the standard decorator: the behaviour to match."""
    fields = [
        (f.name, f.type, dataclasses.field(default=f.default, default_factory=f.default_factory))
        for f in dataclasses.fields(WorldConfig)
    ]
    return dataclasses.make_dataclass("WorldConfig", fields, frozen=True)


def test_construction_matches_the_standard_dataclass():
    """Defaults, keyword and positional fields give the attribute dict (values and field
    order) the standard decorator's ``__init__`` gives, and the same repr text."""
    std = _standard()
    for args, kwargs in (((), {}), ((), {"months": 12, "pay_phd": 1.0}), ((24, 5.0), {"pay_ra": 7.0})):
        ours, theirs = WorldConfig(*args, **kwargs), std(*args, **kwargs)
        assert list(vars(ours).items()) == list(vars(theirs).items())
        assert repr(ours) == repr(theirs)
    assert WorldConfig(24).months == 24 and WorldConfig(24, 5.0).start_budget == 5.0


def test_tables_are_fresh_per_instance():
    """Each config gets its own table dicts from the default factories (never shared)."""
    a, b = WorldConfig(), WorldConfig()
    assert a.pools == b.pools and a.pools is not b.pools
    given = {"sparse_models": 1.0}
    assert WorldConfig(initial_hotness=given).initial_hotness is given  # a given value is taken as is


def test_bad_arguments_raise_type_error_naming_them():
    """Unknown keywords, a field given twice and too many positional values are TypeErrors
    naming what was wrong, as the generated ``__init__`` raises."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'monthz'"):
        WorldConfig(monthz=3)
    with pytest.raises(TypeError, match="multiple values for argument 'months'"):
        WorldConfig(3, months=4)
    with pytest.raises(TypeError, match="positional arguments"):
        WorldConfig(*range(len(dataclasses.fields(WorldConfig)) + 1))


def test_equality_hash_frozenness_and_copies():
    """Equal fields compare equal (another class never does); hashing hashes the field
    tuple (so, with its table dicts, raises TypeError as the standard one does); fields
    cannot be assigned; replace, copy, deepcopy and pickle round-trip."""
    a = WorldConfig()
    b = dataclasses.replace(a, months=12)
    assert a == WorldConfig() and a != b and dataclasses.replace(b, months=a.months) == a
    assert a != _standard()() and a != 5
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    with pytest.raises(TypeError, match="unhashable"):
        hash(_standard()())
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.months = 3  # type: ignore[misc]
    for clone in (copy.copy(a), copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert clone == (a if clone.months == a.months else b)
    assert WorldConfig.__match_args__[:2] == ("months", "start_budget")
    assert dataclasses.asdict(b)["months"] == 12 and b.to_dict()["months"] == 12


def test_a_post_init_is_refused_rather_than_skipped():
    """The looped ``__init__`` never runs ``__post_init__``: a class that defines one is
    refused when decorated, so a validation hook can never be silently dropped."""
    from world.config import _add_field_methods

    @dataclasses.dataclass(frozen=True, init=False, repr=False, eq=False)
    class Checked:
        x: int = 0

        def __post_init__(self) -> None:  # pragma: no cover - never called
            raise AssertionError

    with pytest.raises(TypeError, match="__post_init__"):
        _add_field_methods(Checked)
