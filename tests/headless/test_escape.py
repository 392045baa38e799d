"""The ``from json import decoder`` escape (it once gave the real module,
and from there ``sys``, ``os`` and ``builtins``) and its defence in depth: the module copies
reach no module and nothing of ``sys``/``os``; the runtime import refuses names a copy
lacks even without the static check; the agent process runs unprivileged, with no new
privileges, no spare descriptors and no new processes."""

from __future__ import annotations

import builtins
import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pibench_tui.sandbox import check_source, child, policy
from tests.headless.conftest import pibench_command

#: Objects agent code must never reach through a module copy.
_SYSTEM_MODULES = (sys, os, io, builtins)


def _forbidden_ids() -> set[int]:
    ids = {id(m) for m in _SYSTEM_MODULES}
    for mod in (sys, os, io):
        for value in vars(mod).values():
            if isinstance(value, (int, float, str, bytes, bool, type(None), tuple)):
                continue
            if isinstance(value, type) and value.__module__ not in ("sys", "os", "io", "_io", "posix", "builtins"):
                continue  # a class os merely imports (collections.abc.Mapping), not one of its own
            ids.add(id(value))
    for name in (*policy.BLOCKED_NAMES, "__import__", "getattr", "hasattr", "setattr", "delattr", "vars", "globals"):
        ids.add(id(getattr(builtins, name)))
    return ids


def _public(obj: object) -> list[tuple[str, object]]:
    out = []
    try:
        names = dir(obj)
    except Exception:  # noqa: BLE001 - a dir() that fails reaches nothing
        return out
    for name in names:
        if name.startswith("_"):
            continue
        try:
            out.append((name, getattr(obj, name)))
        except Exception:  # noqa: BLE001 - unreadable attributes reach nothing
            continue
    return out


def test_module_copies_reach_no_module_and_nothing_of_sys_or_os():
    """Walk every public attribute of every allowed module copy, two levels deep: no
    module object but the sandbox's own copies of the listed submodules (numpy.random ...),
    and no object of sys, os, io or the refused builtins (the ``sys`` stand-in holds
    constants and the agent's own output streams only)."""
    forbidden = _forbidden_ids()
    copies = policy.module_copies()
    # pibench_agent is no module copy: the agent process builds it from its own bindings.
    assert set(copies) == set(child.ALLOWED_MODULES) - {policy.AGENT_MODULE}

    def check(path, value):
        if isinstance(value, types.ModuleType):
            assert value.__name__.endswith("(sandbox copy)"), path
        assert id(value) not in forbidden, path

    walked = 0
    for mod_name, copy in copies.items():
        if mod_name == "sys":
            assert {n for n in vars(copy) if not n.startswith("_")} == set(policy.SYS_NAMES)
            continue
        for name, value in _public(copy):
            path = f"{mod_name}.{name}"
            walked += 1
            check(path, value)
            for name2, value2 in _public(value):
                walked += 1
                check(f"{path}.{name2}", value2)
    assert walked > 500  # the walk really went through the copies


def test_copy_names_are_no_prefix_of_any_loaded_module():
    """IMPORT_FROM falls back to sys.modules[copy.__name__ + '.' + name]: the copies'
    names match no key (nor the start of one) of sys.modules."""
    import collections.abc  # noqa: F401 - make sure the dangerous submodules are loaded
    import json.decoder  # noqa: F401

    for name, copy in policy.module_copies().items():
        assert copy.__name__ != name
        assert not any(key == copy.__name__ or key.startswith(copy.__name__ + ".") for key in sys.modules)


class _FakeRuntime:
    def __init__(self) -> None:
        self.modules = policy.module_copies()
        self.spec: dict = {}
        self.out = None
        self.help_targets: list = []


def _run_unchecked(code: str) -> dict:
    """Run code with the agent's builtins but WITHOUT the static check (the runtime layer)."""
    g = {"__builtins__": child._safe_builtins(_FakeRuntime()), "__name__": "__main__"}
    exec(compile(code, "<unchecked>", "exec"), g)  # noqa: S102 - the test's own code
    return g


@pytest.mark.parametrize(
    "code",
    [
        "from json import decoder",
        "from numpy import ctypeslib",
        "from re import enum",
        "from json import scanner",
        "from random import _os",
        "from functools import nonexistent",
    ],
)
def test_runtime_import_refuses_names_the_copy_lacks(code):
    """Even if the static check were bypassed, `from X import Y` of a name the copy lacks
    is an ImportError, never the real submodule."""
    with pytest.raises(ImportError):
        _run_unchecked(code)


def test_runtime_import_still_gives_public_names():
    """Without the static check, the sandbox's import still gives an agent the public names it may
    use (``from json import dumps``, ``from math import *``), and ``import re`` gives the sandbox's
    copy."""
    g = _run_unchecked("from json import dumps\nfrom collections import Counter\nfrom math import *\nimport re")
    assert g["dumps"] is json.dumps and g["Counter"]("aab")["a"] == 2 and g["pi"] > 3
    assert g["re"].__name__ == "re (sandbox copy)"


@pytest.mark.parametrize(
    "code",
    [
        "from json import decoder",
        "from numpy import lib",
        "from re import enum",
        "from json import JSONDecoder, decoder",
    ],
)
def test_static_check_refuses_from_import_of_names_the_copy_lacks(code):
    """The static check refuses ``from X import Y`` when Y is a submodule the sandbox copy lacks,
    alone or in a list with allowed names, saying submodules are not available."""
    message = check_source(code)
    assert message is not None and "submodules are not available" in message


def _agent_pids(parent: int) -> list[int]:
    path = Path(f"/proc/{parent}/task/{parent}/children")
    return [int(p) for p in path.read_text().split()]


def _status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _limit(pid: int, what: str) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith(what):
            return line[len(what) :].split()[0]
    raise AssertionError(what)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_agent_process_is_unprivileged_and_boxed(tmp_path):
    """Through the real command: the agent process has NoNewPrivs and a seccomp filter on
    every thread, exactly descriptors 0-2 open with RLIMIT_NOFILE 3, and, when pibench runs as root, uid/gid nobody with no
    supplementary groups, no capabilities and RLIMIT_NPROC 0 (no fork, no threads)."""
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--jsonl", "--seed", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        proc.stdin.write(json.dumps({"code": "x = 1"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["ok"]
        pids = _agent_pids(proc.pid)
        assert len(pids) == 1
        pid = pids[0]
        status = _status(pid)
        assert status["NoNewPrivs"] == "1"
        from pibench_tui.sandbox import confinement_status

        if confinement_status().seccomp:  # every thread (the watchdog too) is filtered
            tasks = os.listdir(f"/proc/{pid}/task")
            assert len(tasks) >= 2
            for tid in tasks:
                task = dict(
                    line.split(":", 1)
                    for line in Path(f"/proc/{pid}/task/{tid}/status").read_text().splitlines()
                    if ":" in line
                )
                assert task["Seccomp"].strip() == "2" and task["NoNewPrivs"].strip() == "1", tid
        assert sorted(int(fd) for fd in os.listdir(f"/proc/{pid}/fd")) == [0, 1, 2]
        assert _limit(pid, "Max open files") == "3"
        if os.geteuid() == 0:
            uid = status["Uid"].split()
            if uid[0] == "0":
                pytest.skip("this system refused the privilege drop (user namespace?)")
            assert set(uid) == {str(child.NOBODY)}
            assert set(status["Gid"].split()) == {str(child.NOBODY)}
            assert status["Groups"] == ""
            assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
        if status["Uid"].split()[0] != "0":
            assert _limit(pid, "Max processes") == "0"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0


# Console output escaping (terminal escapes shown, not obeyed; a fake report header prefixed):
# the "escapes" part of tests/headless/test_bounds.py::test_hostile_console_output_and_input_in_one_session.
