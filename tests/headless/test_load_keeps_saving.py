"""A career resumed with ``headless --load NAME`` keeps autosaving under its own name."""

from __future__ import annotations


def test_load_without_save_keeps_autosaving(pibench, tmp_path):
    """--load c1 (no --save) autosaves c1@m04 and c1@m05 and writes c1 at the end, so a
    third session resumes at month 5, not at the month the first one stopped."""
    from saves import SaveStore

    store = str(tmp_path / "store")
    first = pibench(
        ["headless", "--seed", "5", "--save", "c1", "--saves", store], "time.next_month()\ntime.next_month()\n"
    )
    assert first.returncode == 0, first.stderr
    second = pibench(["headless", "--load", "c1", "--saves", store], "time.next_month()\ntime.next_month()\n")
    assert second.returncode == 0, second.stderr
    names = {i.name for i in SaveStore(store).list()}
    assert {"c1@m04", "c1@m05"} <= names
    world, record = SaveStore(store).load_world("c1")
    assert world.month == 5
    assert record.info.career == "c1"
