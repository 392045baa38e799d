"""Save and resume through headless mode: the resumed career is the uninterrupted one."""

from __future__ import annotations

import json

FIRST = "r = recruit.hire_ra()\ntime.next_month()['month']\nwrite_memory('note from part one')\ntime.next_month()['month']\n"
SECOND = "read_memory()\nrecruit.hire_manager()['ok']\ntime.next_month()['month']\ntime.next_month()['month']\n"


def test_save_then_load_equals_one_uninterrupted_career(pibench, tmp_path):
    """--save NAME at the end of one session and --load NAME in the next give the same
    world (digest) as playing both parts in one session; the notes persist."""
    store = str(tmp_path / "store")
    part1 = pibench(["headless", "--seed", "5", "--save", "c1", "--saves", store], FIRST)
    assert part1.returncode == 0, part1.stderr
    assert "saved as 'c1' (month 3)" in part1.stdout
    part2 = pibench(["headless", "--load", "c1", "--saves", store], SECOND)
    assert part2.returncode == 0, part2.stderr
    assert part2.stdout.startswith("'note from part one'\nTrue\n4\n5\n")
    whole = pibench(["headless", "--seed", "5"], FIRST + SECOND)
    assert part2.report()["state digest"] == whole.report()["state digest"]
    assert part2.report()["scenario"] == "standard (seed 5)"


def test_jsonl_autosaves_each_month(pibench, tmp_path):
    """In JSON-lines mode --save autosaves when the month changes and saves at EOF."""
    from saves import SaveStore

    store = tmp_path / "store"
    requests = "".join(json.dumps({"code": c}) + "\n" for c in ("time.next_month()", "1 + 1", "time.next_month()"))
    run = pibench(["headless", "--jsonl", "--seed", "8", "--save", "auto", "--saves", str(store)], requests)
    assert run.returncode == 0, run.stderr
    assert len(run.replies()) == 3
    names = {info.name for info in SaveStore(store).list()}
    assert {"auto", "auto@m02", "auto@m03"} <= names
    world, _ = SaveStore(store).load_world("auto")
    assert world.month == 3


def test_bad_save_name_exits_1(pibench, tmp_path):
    """An unusable --save name is a runtime error (exit 1) before anything runs."""
    run = pibench(["headless", "--save", " padded ", "--saves", str(tmp_path / "s")], "print('ran')\n")
    assert run.returncode == 1
    assert "ran" not in run.stdout
    assert "--save" in run.stderr


def test_corrupt_save_exits_1(pibench, tmp_path):
    """A damaged save file is refused with a message (exit 1), never half-loaded."""
    from saves import SaveStore

    store_dir = tmp_path / "store"
    ok = pibench(["headless", "--seed", "2", "--save", "good", "--saves", str(store_dir)], "")
    assert ok.returncode == 0
    path = SaveStore(store_dir).file_of("good")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    run = pibench(["headless", "--load", "good", "--saves", str(store_dir)], "")
    assert run.returncode == 1
    assert "good" in run.stderr
