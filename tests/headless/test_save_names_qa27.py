"""QA of what ``pibench headless --save/--load`` leaves in the store (issue 27 §6): a career
played to its end leaves ``NAME`` (as ``pibench play`` now does at quit, tests/tui/test_save_qa27.py)."""

from __future__ import annotations

from saves import SaveStore


def test_headless_save_to_the_end_leaves_the_save_name(pibench, tmp_path):
    """`headless --save hl` playing short-12 to its end leaves hl (finished), the save
    `saves show hl` and `--load hl` use, beside its autosaves."""
    store = str(tmp_path / "store")
    run = pibench(["headless", "--scenario", "short-12", "--save", "hl", "--saves", store], "time.next_month()\n" * 12)
    assert run.returncode == 0, run.stderr
    assert "saved as 'hl' (month 12)" in run.stdout
    s = SaveStore(store, on_warning=None)
    infos = {i.name: i for i in s.list()}
    assert infos["hl"].status == "finished" and "hl@m12-end" in infos
    assert s.resolve("hl").name == "hl"
