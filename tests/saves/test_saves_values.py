"""JSON normalisation of saved values (saves/values.py): numpy, NaN/inf, unicode, keys."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saves import SaveValueError
from saves.values import TAG, canonical_json, encode, from_doc, to_doc


def strict(name: str):
    raise AssertionError(f"non-standard JSON literal {name} in a save")


def roundtrip(value):
    doc, tagged, text = encode(value)
    assert canonical_json(doc) == text
    parsed = json.loads(text, parse_constant=strict)  # strict JSON: no NaN/Infinity literals
    return from_doc(parsed) if tagged else parsed


def same(a, b) -> bool:
    """Equality that treats NaN as equal to NaN and checks types (1 vs 1.0 vs True)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(k1, k2) and same(a[k1], b[k2]) for k1, k2 in zip(a, b, strict=True))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_numpy_scalars_become_python_scalars_of_the_same_value():
    """np.float64/float32/int64/int8/bool_ and arrays are saved as their Python values."""
    value = {
        "f64": np.float64(0.1),
        "f32": np.float32(0.5),
        "i64": np.int64(2**40),
        "i8": np.int8(-3),
        "b": np.bool_(True),
        "arr": np.arange(3),
        "mat": np.array([[1.5, 2.0]]),
    }
    back = roundtrip(value)
    assert back == {"f64": 0.1, "f32": 0.5, "i64": 2**40, "i8": -3, "b": True, "arr": [0, 1, 2], "mat": [[1.5, 2.0]]}
    assert type(back["i64"]) is int and type(back["b"]) is bool and type(back["f64"]) is float


def test_nan_and_infinities_come_back_exactly_and_the_text_stays_strict_json():
    """Policy: non-finite floats are tagged, not refused and not turned into null."""
    value = {"nan": math.nan, "inf": math.inf, "ninf": -math.inf, "np": np.float64("nan"), "xs": [1.0, math.inf]}
    back = roundtrip(value)
    assert math.isnan(back["nan"]) and math.isnan(back["np"])
    assert back["inf"] == math.inf and back["ninf"] == -math.inf and back["xs"] == [1.0, math.inf]


def test_unicode_text_and_keys_survive():
    """Names, notes and keys in any script are kept (escaped as \\uXXXX in the file)."""
    value = {"mémoire": "研究 notes ✓ — ünïcödé 🚀", "names": ["Zoë", "Ōkubo"], "": "empty key"}
    assert roundtrip(value) == value


def test_lone_surrogates_in_agent_notes_are_saved_exactly():
    """Agent text may hold characters UTF-8 cannot encode; the ASCII-escaped file keeps them."""
    value = {"memory": "half a pair: \ud800 and \udfff", "k\ud83d": 1}
    doc, tagged, text = encode(value)
    assert text.isascii()
    assert roundtrip(value) == value


def test_integer_and_other_keys_keep_their_type():
    """Plain JSON would turn {1: ..} into {"1": ..}; the save keeps the int (and None/bool/float keys)."""
    value = {1: "one", "1": "string one", None: 0, False: "f", 2.5: [1]}
    back = roundtrip(value)
    assert same(back, value)


def test_a_user_dict_using_the_reserved_key_is_escaped():
    """A dict that happens to contain "$pibench" is not mistaken for a tagged value."""
    value = {"a": {TAG: "float", "v": "nan"}, "b": math.nan}
    assert same(roundtrip(value), value)
    value = {TAG: "dict", "items": []}
    doc, tagged = to_doc(value)
    assert tagged and from_doc(json.loads(json.dumps(doc))) == value


def test_tuples_become_lists():
    """As with plain JSON, a tuple is read back as a list."""
    assert roundtrip({"t": (1, (2, 3))}) == {"t": [1, [2, 3]]}


@pytest.mark.parametrize(
    "bad, where",
    [
        ({"people": [{"id": "S1", "traits": {1, 2}}]}, "people[0].traits"),
        ({"blob": b"bytes"}, "blob"),
        ({"obj": object()}, "obj"),
        ({"z": 1j}, "z"),
        ({"arr": np.array(["a"], dtype=object)}, "arr"),
        ({"k": {(1, 2): 3}}, "k"),
        ({"d": np.datetime64("2020-01-01")}, "d"),
    ],
)
def test_unsaveable_values_are_refused_naming_where_they_are(bad, where):
    """Sets, bytes, objects, complex, object arrays, tuple keys: SaveValueError with the path."""
    with pytest.raises(SaveValueError) as info:
        encode(bad)
    assert where in str(info.value) and "nothing was written" in str(info.value)


def test_self_referencing_value_is_refused():
    """A cycle cannot be saved; the error says so instead of crashing the interpreter."""
    a: list = []
    a.append(a)
    with pytest.raises(SaveValueError):
        encode({"a": a})


def test_key_order_is_kept():
    """The world may iterate its dicts while drawing, so a resumed career must see the
    saved order (a sorted save would silently change later draws)."""
    value = {"S10": 1, "S2": 2, "S1": {"z": 1, "a": 2}}
    back = roundtrip(value)
    assert list(back) == ["S10", "S2", "S1"] and list(back["S1"]) == ["z", "a"]
    value["x"] = math.nan  # through the careful (tagging) path too
    assert list(roundtrip(value)) == ["S10", "S2", "S1", "x"]


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**130), max_value=2**130),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
keys = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.none(), st.booleans())
values = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(values)
def test_any_value_round_trips_exactly(value):
    """Property: encode -> JSON text -> decode gives back an identical value (types included)."""
    assert same(roundtrip(value), value)
