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
