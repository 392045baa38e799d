"""Start-up discipline: headless mode never imports textual (nor prompt-toolkit on a pipe),
and the agent process runs on the standard library alone."""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import pibench_tui


def test_headless_session_imports_no_ui_library():
    """A whole headless session (console mode, in a fresh interpreter) leaves textual,
    prompt_toolkit, rich and tinydb out of sys.modules."""
    code = (
        "import io, sys\n"
        "from pibench_tui import cli\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b\"lab.dashboard()['month']\\n\"))\n"
        "rc = cli.main(['headless', '--seed', '3'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'textual_plotext', 'prompt_toolkit', 'rich', 'tinydb'})\n"
        "print('RC', rc, 'HEAVY', heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1\n")
    assert proc.stdout.splitlines()[-1] == "RC 0 HEAVY []"


@pytest.mark.parametrize("argv", [["headless", "--help"], ["--help"]])
def test_help_imports_neither_world_nor_ui(argv):
    """`pibench --help` and `pibench headless --help` stay light: nothing of the world but
    world.horizon (the default career length the description names), no UI library, and not
    the sandbox package either (its default limits come from pibench_tui.agent_limits), so
    neither dataclasses nor subprocess; the help still names the sandbox's defaults."""
    code = (
        "import sys\n"
        "from pibench_tui import cli\n"
        "try:\n"
        f"    cli.main({argv!r})\n"
        "finally:\n"
        "    heavy = {'world', 'numpy', 'textual', 'prompt_toolkit'}\n"
        "    light = {'world', 'world.horizon'}\n"
        "    print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in heavy and m not in light))\n"
        "    print('SANDBOX', sorted(m for m in sys.modules if m in ('pibench_tui.sandbox', 'dataclasses', 'subprocess')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[-2:] == ["LOADED []", "SANDBOX []"]
    if argv == ["--help"]:
        from world.config import WorldConfig

        assert f"for {WorldConfig().months} simulated months" in " ".join(proc.stdout.split())
        return
    from pibench_tui.sandbox import DEFAULT_BLOCK_TIMEOUT, DEFAULT_MAX_OUTPUT, DEFAULT_MEMORY_LIMIT

    help_text = " ".join(proc.stdout.split())
    assert f"(default {DEFAULT_BLOCK_TIMEOUT:g})" in help_text
    assert f"(default {DEFAULT_MAX_OUTPUT:,})" in help_text
    assert f"(default {DEFAULT_MEMORY_LIMIT >> 20})" in help_text


def test_agent_process_imports_only_the_standard_library():
    """The agent process script and the two siblings it loads (the policy and the OS
    confinement), and the query worker's script, import nothing but standard modules
    (never pibench_tui, never a third-party package; numpy is imported only by path, when
    the parent says where it is) and of world only ``world.osbound``, the one home of the
    kernel's bounds they share, itself standard library only (loaded by path in both
    processes)."""
    folder = Path(pibench_tui.__file__).parent / "sandbox"
    world_folder = Path(pibench_tui.__file__).parent.parent / "world"
    stdlib = set(sys.stdlib_module_names)
    files = [folder / n for n in ("child.py", "policy.py", "confine.py")]
    files += [world_folder / "osbound.py", world_folder / "sqlworker.py"]
    for path in files:
        name = path.name
        tree = ast.parse(path.read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, name
                if node.module == "world":
                    assert [a.name for a in node.names] == ["osbound"], name
                    assert name in ("confine.py", "sqlworker.py"), name
                    continue
                imported.add(node.module.split(".")[0])
        numpy_ok = {"numpy"} if name == "child.py" else set()
        assert imported <= stdlib | numpy_ok, (name, imported - stdlib)
        assert "world" not in imported and "pibench_tui" not in imported, name


def test_agent_process_starts_without_site_packages():
    """The agent process runs with -S -s -P (no site-packages, no script directory on the
    path) from /, in an environment of its own: it could not import world even if asked."""
    from pibench_tui.sandbox import AgentProcess, _clean_env

    proc = AgentProcess()
    try:
        args = proc.proc.args
        assert args[1:5] == ["-S", "-s", "-P", "-B"]
        assert set(_clean_env()) <= {"PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "LC_CTYPE"}
    finally:
        proc.close()
    purelib = sysconfig.get_paths()["purelib"]
    out = subprocess.run(
        [sys.executable, "-S", "-s", "-P", "-c", "import sys; print(sys.path)"],
        capture_output=True,
        text=True,
        cwd="/",
        env={},
        timeout=30,
    ).stdout
    assert purelib not in out
