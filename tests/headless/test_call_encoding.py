"""The agent process's encoding of API calls (pibench_tui/sandbox/child.py, ``_encode_call``):
usual arguments go through json's C encoder, everything else through the private encoder,
with the same JSON values and the same refusals either way."""

from __future__ import annotations

import json

import pytest

from pibench_tui.sandbox import child as agent_process


def _private(ns: str, method: str, args: tuple, kwargs: dict) -> bytes:
    """The call as the private pure-Python encoder writes it (what every call used to be)."""
    text = agent_process._json_encode({"t": "call", "ns": ns, "m": method, "a": list(args), "k": kwargs})
    return text.encode("utf-8", "replace") + b"\n"


USUAL = [
    ((), {}),
    (("E014", "accept"), {}),
    (("D3", 8), {}),
    (("reasoning", 2, ["P1", "P2"], 1500), {}),
    ((["A1", "A2", "A3"],), {}),
    (({"P1": 5.0, "P2": 2.5},), {}),
    ((40,), {"kind": None, "flag": True, "x": -0.0, "big": 10**30}),
    (('héllo \u2603 "quoted" back\\slash \n\t\r \x01 \ud800',), {}),
]


@pytest.mark.parametrize("args,kwargs", USUAL)
def test_usual_arguments_encode_to_the_same_message(args, kwargs):
    """Usual arguments (exact str/int/float/bool/None, lists and str-keyed dicts of them)
    give the private encoder's message byte for byte (no \\b or \\f in them)."""
    assert agent_process._simple(args) and agent_process._simple(kwargs.values())
    assert agent_process._encode_call("papers", "polish", args, kwargs) == _private("papers", "polish", args, kwargs)


def test_backspace_and_form_feed_encode_to_the_same_values():
    """The one difference of the C encoder: \\b and \\f escaped as such; the parent decodes
    the same value."""
    got = agent_process._encode_call("events", "respond", ("a\bb\fc",), {})
    assert got != _private("events", "respond", ("a\bb\fc",), {})
    assert json.loads(got) == json.loads(_private("events", "respond", ("a\bb\fc",), {}))


class _Str(str):
    pass


class _Dict(dict):
    def items(self):  # an agent's dict whose items() lies: never asked (the private encoder reads dict.items)
        return [("forged", 1)]


@pytest.mark.parametrize(
    "args",
    [
        (_Str("E1"),),
        (_Dict(a=1),),
        ((1, 2),),
        ([["nested"]],),
        ({1: 2.0},),
        ({"a": [1]},),
    ],
)
def test_other_arguments_take_the_private_encoder(args):
    """Subclasses, tuples, nested containers and dicts with other keys are not "usual": they
    are encoded (or refused) by the private encoder exactly as before."""
    assert not agent_process._simple(args)
    try:
        want = _private("students", "set_mentoring", args, {})
    except (TypeError, ValueError):
        with pytest.raises(agent_process.ActionError, match="must be JSON-able"):
            agent_process._encode_call("students", "set_mentoring", args, {})
        return
    assert agent_process._encode_call("students", "set_mentoring", args, {}) == want


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), [1.0, float("-inf")], {"P1": float("nan")}])
def test_nan_and_infinity_are_refused_as_before(bad):
    """A usual-looking argument the C encoder refuses (NaN, infinity) gets the private
    encoder's refusal, word for word."""
    with pytest.raises(agent_process.ActionError) as caught:
        agent_process._encode_call("papers", "polish", ("D1", bad), {})
    with pytest.raises(ValueError) as private:
        _private("papers", "polish", ("D1", bad), {})
    assert caught.value.code == "bad_argument"
    assert str(private.value) in caught.value.message
