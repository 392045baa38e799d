"""Every benchmark under bench/ answers ``--help`` with its usage and what it measures, and
exits 0 without starting a measurement (a benchmark takes from seconds to minutes under
valgrind; a stray argument list must not start one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_"))
"""The benchmarks; ``_name.py`` files are the modules they share (``_callgrind.py``), not run."""


def test_the_bench_folder_has_scripts() -> None:
    """The glob below finds the benchmarks (an empty list would make the next test vacuous)."""
    assert "headless_parts.py" in SCRIPTS and "hostile.py" in SCRIPTS
    assert (BENCH / "_callgrind.py").is_file() and "_callgrind.py" not in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_script_prints_help_and_exits(script: str, tmp_path: Path) -> None:
    """``python bench/SCRIPT --help`` prints an argparse usage line and a description and exits
    0 (the timeout only guards against a script that starts measuring instead; none of its
    output is a figure)."""
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("usage:"), proc.stdout[:500]
    assert "-h, --help" in proc.stdout
    description = proc.stdout.split("\n\n")[1]
    assert description.strip() and not description.startswith(("positional", "options")), proc.stdout[:500]
