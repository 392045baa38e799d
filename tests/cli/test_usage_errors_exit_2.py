"""Usage errors exit 2 in every command (argparse's convention, README "Exit statuses"): an
unknown policy, scenario or save, a file or folder given as an argument that is not there, a
value out of range. Each is said on stderr naming what was wrong and what is valid, before
any work. The QA tester found these exiting 1, the status of a run that failed."""

from __future__ import annotations

import pytest

from tests.cli.conftest import pibench

MISSING = "/nonexistent-pibench-path/x"

#: (arguments, words the error must hold: what was wrong, and what is valid)
CASES = [
    (["run", "no-such-policy", "--seeds", "1"], ["no-such-policy", "policies: do-nothing, baseline"]),
    (["compare", "baseline", "no-such-policy", "--seeds", "1"], ["no-such-policy", "policies:"]),
    (["ablate", "--policy", "no-such-policy", "--seeds", "1"], ["no-such-policy", "policies:"]),
    (["run", "baseline", "--scenario", "no-such", "--seeds", "1"], ["no-such", "bundled scenarios: standard"]),
    (["calibrate", "--scenario", f"{MISSING}.toml", "--seeds", "1"], [f"{MISSING}.toml", "no such scenario file"]),
    (["headless", "--scenario", "no-such"], ["no-such", "bundled scenarios: standard"]),
    (["headless", "--load", "no-such-save"], ["no save called 'no-such-save'"]),
    (["headless", "--save", "../x"], ["--save", "'../x' contains '/'", "a save name may use letters"]),
    (["play", "--save", "../x"], ["--save", "'../x' contains '/'", "a save name may use letters"]),
    (["play", "--save", "a@m01"], ["--save", "contains '@'", "reserved for autosaves"]),
    (["agent", "--model", "m", "--command", "true", "--scenario", "no-such"], ["no-such", "bundled scenarios"]),
    (["replay", MISSING], [MISSING, "no such folder", "give run directories"]),
    (["report", MISSING], [MISSING, "no such file or folder", "give run directories"]),
    (["report", ".", "--seal", MISSING], [f"--seal {MISSING}", "no such file", "pibench seal"]),
    (["seal", "--count", "0", "--out", "unused.json"], ["--count", "must be between 1 and", "'0'"]),
    (["unseal", MISSING], [MISSING, "no such file", "pibench seal"]),
    (["scenarios", "show", "no-such"], ["no-such", "bundled scenarios: standard"]),
    (["saves", "show", "no-such-save"], ["no save called 'no-such-save'"]),
    (["saves", "delete", "no-such-save", "--yes"], ["no save called 'no-such-save'"]),
    (["saves", "export", "no-such-save", "out.json"], ["no save called 'no-such-save'"]),
    (["saves", "import", MISSING], [MISSING, "no such file", "saves export"]),
    (["pivots", "build", "--out", "pb", "--preset", "smoke", "--policy", "no-such"], ["no-such", "policies:"]),
    (["pivots", "build", "--out", "pb", "--preset", "smoke", "--scenario", "no-such"], ["no-such", "bundled"]),
    (["pivots", "eval", "--cases", MISSING, "--out", "pv", "--judge", "first"], [MISSING, "case set"]),
    (["pivots", "score", MISSING], [MISSING, "no such folder"]),
]


@pytest.mark.parametrize(("args", "said"), CASES, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(CASES)])
def test_a_usage_error_exits_2_naming_what_was_wrong(tmp_path, args, said):
    """Exit 2, one message naming the wrong value and the valid ones, no traceback, and
    nothing created in the working folder (no work was started)."""
    proc = pibench(*args, cwd=tmp_path, home=tmp_path / "home")
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    err = " ".join(proc.stderr.split())
    for words in said:
        assert words in err, err
    assert "Traceback" not in proc.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name != "home"] == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--scenario", "no-such"], "bundled scenarios"),
        (["--load", "no-such-save"], "no save called"),
        (["--save", "../x"], "contains '/'"),  # QA issue 27: a bad --save NAME exited 1
    ],
)
def test_play_usage_errors_exit_2_on_a_terminal(tmp_path, args, said):
    """`pibench play` on a terminal (a pseudo-terminal here): an unknown scenario or save is a
    usage error, exit 2, said on stderr before the UI starts."""
    import os
    import pty
    import subprocess

    from tests.headless.conftest import pibench_command

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [*pibench_command(), "play", *args], stdin=follower, stdout=follower, stderr=subprocess.PIPE,
            text=True, timeout=120, env=dict(os.environ, PIBENCH_HOME=str(tmp_path)), check=False,
        )  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and "pibench play: error:" in proc.stderr
