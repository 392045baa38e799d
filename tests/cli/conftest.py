"""Helpers for the command-line tests: the real ``pibench`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.headless.conftest import pibench_command


def pibench(*args: str, cwd: Path | None = None, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``pibench ARGS`` (stdin empty); its exit status and output, decoded."""
    env = dict(os.environ)
    if home is not None:
        env["PIBENCH_HOME"] = str(home)
    return subprocess.run(
        pibench_command() + list(args),
        input="", capture_output=True, text=True, timeout=300, env=env, cwd=cwd, check=False,
    )  # fmt: skip
