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


def test_playing_on_from_an_older_save_never_replaces_the_career(pibench, tmp_path):
    """QA (issue 27 §6): after career qa finished, `headless --load qa@m59` (no --save) played
    on and wrote a manual save qa at month 59 over the finished one, saying only "saved as
    'qa' (month 59)"; `--load qa` then resumed the branch. Now what is played from an older
    save is saved as a new career (qa-from-m11 here), said at start on stderr, and qa with
    its autosaves stays as it was; `--save qa` replaces it only when asked."""
    store = str(tmp_path / "store")
    run = pibench(["headless", "--scenario", "short-12", "--save", "qa", "--saves", store], "time.next_month()\n" * 12)
    assert run.returncode == 0, run.stderr
    before = {(i.name, i.updated) for i in SaveStore(store, on_warning=None).list()}
    branch = pibench(["headless", "--load", "qa@m11", "--saves", store], "time.next_month()\n")
    assert branch.returncode == 0, branch.stderr
    assert "saved as 'qa-from-m11' (month 12)" in branch.stdout
    assert "new career 'qa-from-m11'" in branch.stderr and "'qa' stays as it is" in branch.stderr
    s = SaveStore(store, on_warning=None)
    after = {(i.name, i.updated) for i in s.list()}
    assert before <= after  # every save of qa as it was
    assert {n for n, _ in after - before} == {"qa-from-m11", "qa-from-m11@m12"}
    world, record = s.load_world("qa")
    assert record.info.name == "qa" and world.finished  # --load qa: the finished career
    explicit = pibench(["headless", "--load", "qa@m11", "--save", "qa", "--saves", store], "lab.dashboard()\n")
    assert explicit.returncode == 0, explicit.stderr
    assert "saved as 'qa' (month 11)" in explicit.stdout and "new career" not in explicit.stderr
