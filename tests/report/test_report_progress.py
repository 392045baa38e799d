"""``pibench report`` on a folder of many things (QA leftover: ``pibench report /tmp`` ran for
minutes without a sign of life and listed thousands of folders one by one): a progress bar
on stderr on a terminal only, and the folders of other things skipped as one counted line."""

from __future__ import annotations

import os
import pty
import subprocess
import threading

from pibench_tui.harness.runcheck import PLAIN_LISTED
from tests.headless.conftest import pibench_command, run_pibench


def _mixed_folder(tmp_path):
    """25 do-nothing careers beside PLAIN_LISTED + 20 folders of other things and
    PLAIN_LISTED + 2 links to a folder, none named as a run folder."""
    runs = tmp_path / "runs"
    played = run_pibench(
        ["run", "do-nothing", "--scenario", "short-12", "--seeds", "1-25", "--save-runs", str(runs)],
        home=tmp_path / "home",
    )
    assert played.returncode == 0, played.stderr
    junk = runs / "junk"
    for i in range(PLAIN_LISTED + 20):
        (junk / f"d{i:02d}").mkdir(parents=True)
        (junk / f"d{i:02d}" / "notes.txt").write_text("not a run\n")
    for i in range(PLAIN_LISTED + 2):
        os.symlink(junk / "d00", junk / f"link{i:02d}")
    return runs


def _with_stderr_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``pibench ARGS`` with stderr a pty (stdout a pipe): exit status, stdout, what the
    terminal received."""
    master, slave = pty.openpty()
    received: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed
                return
            if not chunk:
                return
            received.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.run(
            pibench_command() + args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
            env=env, timeout=600, check=False,
        )  # fmt: skip
    finally:
        os.close(slave)
    reader.join(timeout=30)
    os.close(master)
    return proc.returncode, proc.stdout.decode(), b"".join(received).decode("utf-8", "replace")


def test_many_folders_of_other_things_are_one_counted_line_and_a_bar_shows_on_a_terminal(tmp_path):
    """Below the runs, 30 folders of other things and 12 links not named as run folders: the
    report lists neither one by one but one "not a run" line each with the count (the 25
    careers are read as ever); with stderr a pipe no progress is written there, with stderr
    a terminal the bar of the run folders being read is drawn there."""
    runs = _mixed_folder(tmp_path)
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"), COLUMNS="200")
    piped = run_pibench(["report", str(runs)], home=tmp_path / "home")
    assert piped.returncode == 0, piped.stderr
    out = "".join(piped.stdout.split())  # rich cuts long lines, in a word or at a space
    for said in (
        f"{PLAIN_LISTED + 20} folders below {runs} hold none of a run's files",
        f"{PLAIN_LISTED + 2} symbolic links below {runs} are not named as run folders",
    ):
        assert "".join(said.split()) in out, said
    assert "junk/d07" not in out and "junk/link05" not in out  # beyond the three shown
    assert "25" in out and "do-nothing" in out
    assert "reading the run folders" not in piped.stderr
    code, stdout, terminal = _with_stderr_on_a_terminal(["report", str(runs)], env)
    assert code == 0 and "do-nothing" in stdout
    assert f"reading the run folders in {runs}" in terminal and "reading the run folders" not in stdout
