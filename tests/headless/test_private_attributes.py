"""Private attributes of objects agent code did not define (issue 25 §4): the class of the
``np.zeros(1).ctypes._ctypes._os`` escape (the real ``os``, ``sys`` and ``ctypes`` with no
dunder and no import) is closed for every spelling — dotted, ``getattr``, ``attrgetter``,
``x . _y`` — while agent code keeps its own private attributes. Through the real command."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.headless.conftest import pibench_command

ATTACKS = {
    "numpy ctypes": "import numpy as np\nr = np.zeros(1).ctypes._ctypes._os.getpid()",
    "getattr": "import numpy as np\nr = getattr(getattr(np.zeros(1).ctypes, '_ctypes'), '_os')",
    "attrgetter": "import numpy as np, operator\nr = operator.attrgetter('_ctypes._os')(np.zeros(1).ctypes)",
    "spaced": "import numpy as np\nr = np.zeros(1).ctypes . _ctypes",
    "a function's private attribute": "import json\nr = json.dumps._x",
    "a subclass of a library class": (
        "import numpy as np\nclass A(np.ndarray):\n    pass\n"
        "a = np.zeros(1).view(A)\nr = [n for n in dir(np.ndarray) if n.startswith('_') and not n.endswith('__')]\n"
        "r = [getattr(a, n) for n in r]\nr = r or a._no_such_thing"
    ),
    "setattr on a library object": "import numpy as np\nsetattr(np.zeros(1).ctypes, '_x', 1)",
}

OWN = (
    "class Box:\n    _kind = 'box'\n    def __init__(self):\n        self._items = [1, 2]\n"
    "    def _count(self):\n        return len(self._items)\n"
    "b = Box()\nsetattr(b, '_more', 3)\nprint(b._kind, b._count(), getattr(b, '_items'), b._more, Box._kind)"
)


def _session(codes: list[str], home: str) -> list[dict]:
    proc = subprocess.run(
        pibench_command() + ["headless", "--jsonl", "--seed", "3"],
        input="".join(json.dumps({"code": c}) + "\n" for c in codes),
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PIBENCH_HOME=home), check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [x for x in lines if "ok" in x]  # the replies (not the greeting)


def test_private_attributes_of_objects_agent_code_did_not_define_are_refused(tmp_path) -> None:
    """Each route to a library object's (or pibench's) private attribute ends in a
    SandboxError naming the rule; none reaches a module; an agent class's own private
    attributes (class, instance, method, set with setattr) still read as in Python."""
    replies = _session([*ATTACKS.values(), OWN], str(tmp_path))
    assert len(replies) == len(ATTACKS) + 1
    for (what, _), reply in zip(ATTACKS.items(), replies, strict=False):
        text = json.dumps(reply)
        assert not reply["ok"] or "SandboxError" in text, (what, reply)
        assert "private attributes" in text, (what, reply)
    own = replies[-1]
    assert own["ok"], own
    assert "box 2 [1, 2] 3 box" in json.dumps(own)


@pytest.mark.parametrize("name", ["_x", "_ctypes", "__dict__x"])
def test_the_private_rule_names(name: str) -> None:
    """A leading underscore without the dunder form is private; dunders keep their own rule."""
    from pibench_tui.sandbox import policy

    assert policy.is_private(name) == (not policy.is_dunder(name))
