"""Helpers for the headless tests: run the real ``pibench`` command over pipes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


def pibench_command() -> list[str]:
    """The installed ``pibench`` script next to this interpreter, else ``python -m pibench_tui``."""
    script = Path(sys.executable).parent / "pibench"
    if script.exists():
        return [str(script)]
    found = shutil.which("pibench")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return [found]
    return [sys.executable, "-m", "pibench_tui"]


@dataclass
class Run:
    """A finished ``pibench`` process."""

    returncode: int
    stdout: str
    stderr: str

    def replies(self) -> list[dict]:
        """The JSON-lines replies (one per non-empty stdout line, the final ``end`` event
        left out: see :meth:`end`)."""
        lines = [json.loads(line) for line in self.stdout.splitlines() if line.strip()]
        return [line for line in lines if "event" not in line]

    def end(self) -> dict:
        """The JSON-lines ``{"event": "end", "report": {...}}`` line (the last line)."""
        last = json.loads(self.stdout.splitlines()[-1])
        assert last.get("event") == "end", last
        return last

    def report(self) -> dict[str, str]:
        """The console report's fields (``month reached``, ``Impact``, ``state digest`` ...)."""
        start = self.stdout.rindex("=== pibench career report ===")
        fields = {}
        for line in self.stdout[start:].splitlines()[1:]:
            m = re.match(r"(\S.*?)\s{2,}(.*)$", line)
            if m:
                fields[m.group(1)] = m.group(2)
        return fields

    def errors(self) -> list[str]:
        """Console-mode error lines (raised in agent code: ``Error ...``; found by pibench:
        ``pibench error ...``)."""
        return [line for line in self.stdout.splitlines() if line.startswith(("Error", "pibench error"))]


def jsonl_replies(codes: list[str], home: str) -> list[dict]:
    """The replies (not the greeting) of one ``pibench headless --jsonl --seed 3`` session
    that runs ``codes`` as blocks, one after the other, with ``PIBENCH_HOME=home``."""
    proc = subprocess.run(
        pibench_command() + ["headless", "--jsonl", "--seed", "3"],
        input="".join(json.dumps({"code": c}) + "\n" for c in codes),
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PIBENCH_HOME=home), check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [x for x in lines if "ok" in x]


def run_pibench(args: list[str], stdin: str | bytes = "", *, timeout: float = 120, home: Path | None = None) -> Run:
    """Run ``pibench ARGS`` with ``stdin`` piped in; return its exit status and output."""
    env = dict(os.environ)
    if home is not None:
        env["PIBENCH_HOME"] = str(home)
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        pibench_command() + args,
        input=data,
        capture_output=True,
        timeout=timeout,
        env=env,
    )
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


@pytest.fixture
def pibench(tmp_path):
    """``pibench(args, stdin)`` with ``PIBENCH_HOME`` in a temporary folder."""

    def run(args: list[str], stdin: str | bytes = "", **kw) -> Run:
        kw.setdefault("home", tmp_path / "home")
        return run_pibench(args, stdin, **kw)

    return run


class ConsoleParts:
    """One console-mode script made of named parts, so that one ``pibench headless`` process
    proves what several fresh sessions would (a fresh process only where a test's premise
    needs one). Each part is followed by ``print('<<end NAME>>')``; a part's output is what
    was printed between the end marker before it and its own, its errors are the error
    lines naming one of its lines.

    Args:
        parts: ``(name, text)`` in order; a part's text ends with a newline; ``bytes`` text
            (e.g. garbage that is not UTF-8) makes the whole script bytes.
    """

    def __init__(self, parts: list[tuple[str, str | bytes]]) -> None:
        self.names = [name for name, _ in parts]
        self.spans: dict[str, tuple[int, int]] = {}
        chunks: list[bytes] = []
        line = 1
        for name, text in parts:
            data = text.encode("utf-8") if isinstance(text, str) else text
            assert data.endswith(b"\n"), f"part {name!r} must end with a newline"
            n = data.count(b"\n")
            self.spans[name] = (line, line + n - 1)
            chunks.append(data + f"print('<<end {name}>>')\n".encode())
            line += n + 1
        self.script = b"".join(chunks)

    def first_line(self, name: str) -> int:
        """The script line of the part's first line."""
        return self.spans[name][0]

    def stdout(self, run: Run, name: str) -> str:
        """What the part printed (its end marker must be there: the session went on)."""
        end = f"<<end {name}>>\n"
        assert end in run.stdout, f"part {name!r}: the session did not go on past it"
        i = self.names.index(name)
        start = 0
        if i:
            before = f"<<end {self.names[i - 1]}>>\n"
            start = run.stdout.index(before) + len(before)
        return run.stdout[start : run.stdout.index(end)]

    def errors(self, run: Run, name: str) -> list[str]:
        """The part's error lines (``Error on line N: ...``/``pibench error on line N: ...``)."""
        first, last = self.spans[name]
        return [e for e in run.errors() if first <= int(e.split("line ", 1)[1].split(":", 1)[0]) <= last]


FAKE_AGENT_PREAMBLE = r"""
import json, marshal, os, sys
def send(text):
    os.write(1, (text + "\n").encode())
def messages():
    # the parent's frames: the length in digits, a newline, the message marshalled
    stdin = sys.stdin.buffer
    while True:
        head = stdin.readline()
        if not head:
            return
        yield marshal.loads(stdin.read(int(head)))
"""
"""The start of a stand-in agent process script (for protocol tests): imports, ``send`` (a
JSON line to the parent) and ``messages()`` (the parent's messages, read from their frames)."""

FAKE_AGENT_HANDSHAKE = (
    FAKE_AGENT_PREAMBLE
    + r"""for msg in messages():
    if msg["t"] == "init":
        send('{"t":"ready"}')
    elif msg["t"] == "exit":
        break
"""
)
"""A stand-in agent process's message loop up to its ``run`` branch: it answers ``init`` with
``ready`` and ends at ``exit``; a test appends its own ``elif msg["t"] == "run":`` branch."""
