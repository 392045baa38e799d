"""A sealed evaluation with a ``--command`` backend (issue 28): the backend must not be able
to read the seal file nor the run folders.

The attacker's backend reads ``--seeds @FILE`` from pibench's command line (its nearest
ancestor's ``/proc/PID/cmdline`` that holds one), opens the seal file and lists ``--out``; it sends what it found
back as its reply. Run as pibench's own user it could (and then played the hidden-state
oracle): such a run is refused before any career. Run as another user
(``--command-user``, pibench as root) it finds nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pibench_tui.cli.seeds import read_seal
from tests.headless.conftest import pibench_command

#: The attacker's backend (run by /usr/bin/python3 so that any user can run it).
ATTACKER = r"""#!/usr/bin/python3
import json, os, sys
json.load(sys.stdin)
found = []
try:
    pid, argv = os.getppid(), []
    while pid > 1 and not any(a.startswith(b"@") for a in argv):  # up to pibench (past any wrapper)
        argv = open("/proc/%d/cmdline" % pid, "rb").read().split(b"\0")
        pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
    seal = next(a[1:].decode() for a in argv if a.startswith(b"@"))
    try:
        found.append("SEAL-READ " + open(seal).read().replace("\n", " ")[:4000])
    except OSError:
        found.append("SEAL-DENIED")
    out = argv[argv.index(b"--out") + 1].decode()
    try:
        found.append("OUT-READ " + " ".join(os.listdir(out)))
    except OSError:
        found.append("OUT-DENIED")
except Exception as exc:
    found.append("PROBE-FAILED " + repr(exc))
try:
    with open(os.environ["ATTACK_MARKER"], "a") as fh:
        fh.write("ran\n")
except (KeyError, OSError):
    pass
reply = "# " + "; ".join(found) + "\n```python\ntime.next_month()\n```"
print(json.dumps({"content": reply}))
"""


@pytest.fixture
def attacker():
    """The attacker's script in a folder every user may enter (tmp_path is owner-only)."""
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs /usr/bin/python3")
    folder = Path(tempfile.mkdtemp(prefix="pibench-attacker-", dir="/tmp"))
    folder.chmod(0o755)
    script = folder / "backend.py"
    script.write_text(ATTACKER)
    script.chmod(0o755)
    yield script
    shutil.rmtree(folder, ignore_errors=True)


def backend_user() -> str:
    """A user of the system for a ``--command`` backend that is neither root nor the agent
    processes' ``nobody`` (refused): ``daemon``."""
    import pwd

    try:
        pwd.getpwnam("daemon")
    except KeyError:
        pytest.skip("needs a user 'daemon'")
    return "daemon"


def _seal(folder: Path) -> Path:
    path = folder / "seal.json"
    subprocess.run(
        [*pibench_command(), "seal", "--count", "1", "--out", str(path)], check=True, capture_output=True, timeout=60
    )
    return path


def _agent(seal: Path, out: Path, script: Path, *extra: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*pibench_command(), "agent", "--model", "m", "--command", str(script), "--scenario", "short-12"]
        + ["--seeds", f"@{seal}", "--out", str(out), "--max-turns", "1", *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


def test_a_sealed_run_refuses_a_command_backend_of_its_own_user(tmp_path, attacker):
    """``pibench agent --seeds @FILE --command CMD`` without ``--command-user`` exits 1
    before the backend ever runs (no request, no run folder), naming why and what to do;
    before, the backend read the seal file through the parent's command line."""
    seal = _seal(tmp_path)
    marker = tmp_path / "ran"
    out = tmp_path / "runs"
    env = dict(os.environ, ATTACK_MARKER=str(marker), PIBENCH_HOME=str(tmp_path / "home"))
    run = _agent(seal, out, attacker, env=env)
    assert run.returncode == 1, run.stderr
    assert "sealed evaluation is refused" in run.stderr and "--command-user" in run.stderr
    assert not marker.exists() and not out.exists()
    # a public seed still plays with the same backend
    public = subprocess.run(
        [*pibench_command(), "agent", "--model", "m", "--command", str(attacker), "--scenario", "short-12"]
        + ["--seeds", "5", "--out", str(out), "--max-turns", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert public.returncode == 0, public.stderr
    assert marker.exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="--command-user needs root")
def test_a_command_backend_run_as_another_user_cannot_read_the_seal_or_the_runs(tmp_path, attacker):
    """With ``--command-user daemon`` the sealed career plays; every reply of the attacker's
    backend says it could read neither the seal file nor ``--out`` (created owner-only), and
    the seed appears nowhere in the run folder. An ``--out`` that user can enter is refused
    before any career, naming the folder."""
    seal = _seal(tmp_path)
    row = read_seal(seal)["seeds"][0]
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    open_out = Path(tempfile.mkdtemp(prefix="pibench-open-out-", dir="/tmp"))
    try:
        open_out.chmod(0o755)
        refused = _agent(seal, open_out, attacker, "--command-user", backend_user(), env=env)
        assert refused.returncode == 1 and "can enter --out" in refused.stderr, refused.stderr
    finally:
        shutil.rmtree(open_out, ignore_errors=True)

    out = tmp_path / "runs"
    run = _agent(seal, out, attacker, "--command-user", backend_user(), env=env)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_mode & 0o077 == 0
    (career,) = [p for p in (out / "m").iterdir() if p.is_dir()]
    text = (career / "transcript.jsonl").read_text()
    events = [json.loads(line) for line in text.splitlines()]
    assert any("SEAL-DENIED; OUT-DENIED" in json.dumps(e) for e in events), text[-3000:]
    assert "SEAL-READ" not in text and "OUT-READ" not in text and "PROBE-FAILED" not in text
    for path in career.rglob("*"):
        if path.is_file():
            assert row["salt"] not in path.read_text(errors="replace"), path


def test_a_run_folder_another_user_can_change_is_refused(tmp_path, attacker):
    """``pibench agent --out DIR`` where another user could plant links or swap files (DIR
    writable by others; as root also DIR owned by nobody, with ``transcript.jsonl`` planted
    as a link to a file of root's): the career is refused naming the folder and the linked
    file is untouched (before: pibench, as root, wrote the career's files in it)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("ROOT-OWNED-DATA\n")
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    cases = [("open", 0o777, None)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cases.append(("foreign", 0o755, 65534))
    for name, mode, owner in cases:
        out = tmp_path / name
        career = out / "m" / "short-12-5"
        career.mkdir(parents=True)
        (career / "transcript.jsonl").symlink_to(victim)
        for folder in (out, out / "m", career):
            folder.chmod(mode)
            if owner is not None:
                os.chown(folder, owner, owner)
        run = subprocess.run(
            [*pibench_command(), "agent", "--model", "m", "--command", str(attacker), "--scenario", "short-12"]
            + ["--seeds", "5", "--out", str(out), "--max-turns", "1", "--no-endpoint-check"],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        assert run.returncode != 0, (name, run.stderr)
        why = "belongs to another user" if owner is not None else "can be written by other users"
        assert why in run.stderr and "the run folder" in run.stderr, (name, run.stderr)
        assert victim.read_text() == "ROOT-OWNED-DATA\n"
        assert sorted(p.name for p in career.iterdir()) == ["transcript.jsonl"]
