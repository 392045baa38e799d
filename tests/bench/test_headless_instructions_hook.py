"""bench/headless_instructions.py measures a headless block inside libc's ``qsort`` in the
agent process through the copy of child.py it patches. The hook it appends calls the one
qsort trampoline of ``bench/_callgrind.py`` (it kept a copy of it, as text) and still runs
the block and answers it; the valgrind command line is ``_callgrind.VALGRIND`` in both."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "headless_instructions.py"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_headless_instructions_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_counted_child_uses_the_shared_trampoline_and_answers_the_block(tmp_path, monkeypatch):
    """The patched child.py imports ``_callgrind.in_qsort_result`` (no ctypes qsort of its
    own); a headless session on it answers block 1 and the counted block 2 as usual."""
    bench = _bench()
    script = bench.counted_child_script(str(ROOT), tmp_path)
    text = script.read_text()
    assert "from _callgrind import in_qsort_result" in text
    assert "CDLL" not in text and "qsort(" not in text.replace("in_qsort_result(", "")

    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
    from pibench_tui.sandbox import process

    monkeypatch.setattr(process, "CHILD_SCRIPT", script)
    session = HeadlessSession(HeadlessOptions(seed=101))
    try:
        first = session.run_block("1")
        counted = session.run_block("print(40 + 2)\nlab.dashboard()['month']")
    finally:
        session.close()
    assert first.ok and counted.ok, (first.error, counted.error)
    assert counted.stdout.startswith("42"), counted.stdout


def test_one_valgrind_command_line():
    """The agent process's valgrind command starts with the shared ``VALGRIND`` arguments."""
    assert "VALGRIND" in SCRIPT.read_text() and '"--toggle-collect=qsort_r"' not in SCRIPT.read_text()
