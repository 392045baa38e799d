"""Run folders that are damaged or planted (QA findings F6, F11, F14 on issues 25 and 28):
a deeply nested JSON value is a damaged career, never a traceback; paths in messages show
their control characters; a planted symbolic link is never followed and a verdict is never
written into a folder of another user. Mounted through the real ``pibench`` command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.evidence.test_run_dirs import _agent_run
from tests.headless.conftest import run_pibench

#: One JSON value nested 200,000 levels deep (400 KB: under every size limit).
DEEP = "[" * 200_000 + "]" * 200_000


def _policy_runs(tmp_path: Path) -> Path:
    out = tmp_path / "pol"
    rc = run_pibench(["run", "oracle", "--scenario", "short-12", "--seeds", "101,102", "--save-runs", str(out)])
    assert rc.returncode == 0, rc.stderr
    return out


@pytest.mark.parametrize("where", ["actions.jsonl", "transcript.jsonl", "eval.json", "result.json"])
def test_a_deeply_nested_json_value_is_a_damaged_career_not_a_crash(where, tmp_path):
    """One line of ``[``*200000 ``]``*200000 in actions.jsonl or transcript.jsonl, as eval.json
    or as a field of result.json: `pibench report` prints its leaderboard with that career
    invalid (the reason names the file and the nesting), the other career counted; `pibench
    replay` names the damage with no traceback (before: RecursionError, exit 1, no report)."""
    runs = tmp_path / "runs"
    run = _agent_run(runs)
    shutil.copytree(run, run.parent / "short-12-102")  # a second career folder: a copy (invalid too)
    if where == "result.json":
        text = (run / "result.json").read_text()
        (run / "result.json").write_text(text.replace('"format"', f'"junk": {DEEP}, "format"', 1))
    elif where == "eval.json":
        (run / "eval.json").write_text(DEEP)
    else:
        with open(run / where, "a", encoding="utf-8") as fh:
            fh.write(DEEP + "\n")
    out = tmp_path / "r.json"
    rep = run_pibench(["report", str(runs), "--json", str(out)], home=tmp_path / "home")
    assert rep.returncode == 0 and "Traceback" not in rep.stderr, rep.stderr
    careers = {c["key"]: c for c in json.loads(out.read_text())["careers"]}
    if where == "eval.json":  # the axes are re-derived: a damaged eval.json is not read
        assert careers["101"]["status"] == "valid", careers["101"]
    else:
        assert careers["101"]["status"] == "invalid", careers["101"]
        assert "nested deeper" in careers["101"]["invalid_reason"]
    rp = run_pibench(["replay", str(run), "--check-transcripts"], home=tmp_path / "home")
    assert "Traceback" not in rp.stderr and "RecursionError" not in rp.stdout + rp.stderr, rp.stderr
    if where in ("actions.jsonl", "transcript.jsonl", "result.json"):
        assert rp.returncode == 1 and "nested deeper" in rp.stdout, rp.stdout + rp.stderr


def test_replay_and_report_show_paths_with_escapes_visibly(tmp_path):
    """`pibench replay` and `pibench report` on a path holding an OSC sequence print it with
    ``\\x1b`` and ``\\x07`` shown, never the raw bytes (before: replay printed them live); a
    path that is not there is a usage error (exit 2)."""
    bad = str(tmp_path / "esc2" / "nonexist\x1b]0;PWN\x07")
    for cmd in (["replay", bad], ["report", bad]):
        r = run_pibench(cmd, home=tmp_path / "home")
        assert r.returncode == 2
        assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr, r.stderr
        assert "nonexist\\x1b]0;PWN\\x07" in r.stderr, r.stderr


def test_replay_never_follows_a_planted_result_link(tmp_path):
    """A run folder whose result.json links to a private file of the reader: `pibench
    replay` refuses the link as a damaged run, never reads the target nor replaces the link
    with a copy of it (before: the secret was copied into the folder, world-readable), and
    `pibench report` lists the career as invalid naming the link."""
    pol = _policy_runs(tmp_path)
    run = pol / "oracle" / "short-12-101"
    secret = tmp_path / "secret.json"
    secret.write_text('{"format": "pibench-run/1", "token": "s3cret"}')
    secret.chmod(0o600)
    (run / "result.json").unlink()
    (run / "result.json").symlink_to(secret)
    rp = run_pibench(["replay", str(run)], home=tmp_path / "home")
    assert rp.returncode == 1 and "symbolic link" in rp.stdout, rp.stdout + rp.stderr
    assert (run / "result.json").is_symlink() and "s3cret" not in rp.stdout + rp.stderr
    out = tmp_path / "r.json"
    rep = run_pibench(["report", str(pol), "--json", str(out)], home=tmp_path / "home")
    assert rep.returncode == 0, rep.stderr
    careers = {c["key"]: c for c in json.loads(out.read_text())["careers"]}
    assert careers["101"]["status"] == "invalid" and "symbolic link" in careers["101"]["invalid_reason"]


def test_replay_keeps_the_result_files_permissions(tmp_path):
    """`pibench replay` records its verdict in a result.json that keeps the old file's
    permissions (a private 0600 file stays 0600; before: it became 0644)."""
    pol = _policy_runs(tmp_path)
    run = pol / "oracle" / "short-12-101"
    (run / "result.json").chmod(0o600)
    rp = run_pibench(["replay", str(run)], home=tmp_path / "home")
    assert rp.returncode == 0, rp.stdout + rp.stderr
    assert json.loads((run / "result.json").read_text())["replay"]["valid"] is True
    assert (run / "result.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away")
def test_root_replay_writes_nothing_into_another_users_run_folder(tmp_path):
    """As root, on a run folder owned by another user: the career is verified and the verdict
    printed, but result.json is left as it was (not replaced by a root-owned copy) and the
    message says why (the folder belongs to another user), as `pibench agent` refuses it."""
    pol = _policy_runs(tmp_path)
    run = pol / "oracle" / "short-12-101"
    before = (run / "result.json").read_bytes()
    for p in [run, *run.iterdir()]:
        os.chown(p, 65534, 65534)
    rp = run_pibench(["replay", str(run)], home=tmp_path / "home")
    assert rp.returncode == 0 and "valid" in rp.stdout, rp.stdout + rp.stderr
    assert "belongs to another user" in rp.stderr and "not recorded" in rp.stderr, rp.stderr
    assert (run / "result.json").read_bytes() == before and (run / "result.json").stat().st_uid == 65534
