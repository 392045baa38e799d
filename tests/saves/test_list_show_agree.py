"""`saves list` and `saves show NAME` agree on what NAME is (QA issue 27 §6: after `play --load
qa` played to the end, the list's row `qa` read month 21, in progress, while `saves show qa`
showed qa@m60-end). NAME means the latest state of the career: `show`, `--load` and now the
list's note all name the newest save when the save NAME itself is older."""

from __future__ import annotations

import json

from saves import SaveStore
from tests.cli.conftest import pibench
from tests.tui.conftest import new_world
from world.api import Api


def _stale_store(home):
    """qa saved at month 2, then autosaved at months 3 and 4 (a session quit without saving,
    or killed, after them)."""
    store = SaveStore(home / "saves", on_warning=None)
    w = new_world("short-12")
    Api(w).time.next_month()
    store.save("qa", w, scenario="short-12")
    for _ in range(2):
        Api(w).time.next_month()
        store.autosave("qa", w, scenario="short-12")
    store.save("other", new_world("short-12"), scenario="short-12")
    return store


def test_list_names_the_save_show_and_load_use_for_an_older_name(tmp_path):
    """A store whose save qa (month 2) is older than its autosave qa@m04: `saves list` adds a note naming the newer save that `--load qa` and `saves show qa` use, none for a career whose save is its newest, `saves show qa` shows qa@m04 and says the save called qa is older, and `--json` gives qa's row `newer`."""
    home = tmp_path / "home"
    _stale_store(home)
    listed = pibench("saves", "list", home=home)
    assert listed.returncode == 0, listed.stderr
    assert "note: 'qa' (month 2/12) is older than 'qa@m04' (month 4/12, in progress)" in listed.stdout
    assert "`saves show qa` use 'qa@m04'" in listed.stdout
    assert "'other'" not in listed.stdout  # a save that is its career's newest gets no note
    shown = pibench("saves", "show", "qa", home=home)
    assert shown.returncode == 0, shown.stderr
    lines = dict(line.split(None, 1) for line in shown.stdout.splitlines() if line.strip())
    assert lines["name"].strip() == "qa@m04"
    assert "the save called 'qa' is older (month 2/12" in shown.stdout
    rows = {r["name"]: r for r in json.loads(pibench("saves", "list", "--json", home=home).stdout)}
    assert rows["qa"]["newer"] == "qa@m04" and "newer" not in rows["other"]
