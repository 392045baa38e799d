"""QA fixes of ``--save``/``--load`` in headless mode: a taken name, a bad name and an
unusable store are refused at start; a signal writes the final save."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from saves import SaveStore
from tests.headless.conftest import pibench_command


def test_a_new_career_cannot_take_an_existing_careers_name(pibench, tmp_path):
    store = str(tmp_path / "store")
    first = pibench(["headless", "--scenario", "tutorial", "--save", "qa1", "--saves", store], "time.next_month()\n")
    assert first.returncode == 0, first.stderr
    second = pibench(["headless", "--scenario", "short-12", "--save", "qa1", "--saves", store], "time.next_month()\n")
    assert second.returncode == 1 and second.stdout == ""
    assert "already names a saved career (scenario tutorial, seed 7, month 2/60" in second.stderr
    assert "--load qa1" in second.stderr and "pibench saves delete qa1" in second.stderr
    assert {i.seed for i in SaveStore(store).list()} == {7}  # nothing of the second career written
    again = pibench(["headless", "--load", "qa1", "--save", "qa1", "--saves", store], "time.next_month()\n")
    assert again.returncode == 0, again.stderr
    assert "saved as 'qa1' (month 3)" in again.stdout


def test_bad_names_and_unusable_stores_are_refused_at_start(pibench, tmp_path):
    run = pibench(["headless", "--save", "a/b", "--saves", str(tmp_path / "s")], "time.next_month()\n")
    assert run.returncode == 1 and "contains '/'" in run.stderr and "reserved for autosaves" in run.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    run = pibench(["headless", "--save", "lab", "--saves", str(blocker)], "time.next_month()\n")
    assert run.returncode == 1 and "cannot be written" in run.stderr and run.stdout == ""


def test_a_damaged_newest_autosave_falls_back_with_one_warning(pibench, tmp_path):
    store = tmp_path / "store"
    run = pibench(["headless", "--seed", "3", "--save", "c", "--saves", str(store)], "time.next_month()\n" * 3)
    assert run.returncode == 0, run.stderr
    s = SaveStore(store)
    for name in ("c", "c@m04"):
        s.file_of(name).write_bytes(b"{\"format\": \"pibench-save\"")
    run = pibench(["headless", "--load", "c", "--saves", str(store)], "lab.dashboard()['month']\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("3\n")
    assert run.stderr.count("skipped the damaged saves 'c' (month 4)") == 1 and "'c@m04'" in run.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_writes_the_final_save(tmp_path, sig):
    store = tmp_path / "store"
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(pibench_command() + ["headless", "--seed", "4", "--save", "lab", "--saves", str(store)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdin.write(b"time.next_month()\ntime.next_month()\n1\n")  # a statement runs once the next one starts
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the month-3 autosave: the blocks ran
        if (store / "index.json").exists() and "lab@m03" in SaveStore(store, on_warning=None).names():
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == (143 if sig == signal.SIGTERM else 1), err
    assert "saved as 'lab' (month 3)" in err
    assert ("terminated (SIGTERM)" if sig == signal.SIGTERM else "interrupted") in err
    world, record = SaveStore(store).load_world("lab", exact=True)
    assert world.month == 3 and record.info.kind == "manual"
