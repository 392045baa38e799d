"""A save store someone else can write to (issue 28): pibench never follows a planted link
and never uses a store of another user, through the real ``pibench`` command.

Before: in a store folder created by another local user, ``pibench headless --save`` (run
as root) opened the planted ``.lock`` link and wrote its holder note over a root-owned file.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.headless.conftest import pibench_command

VICTIM_TEXT = "ROOT-OWNED-DATA\n"


def _plant(tmp_path: Path, mode: int = 0o700) -> tuple[Path, Path]:
    """A store folder whose ``.lock`` is a link to a victim file of this user."""
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    store = tmp_path / "store"
    store.mkdir()
    (store / ".lock").symlink_to(victim)
    store.chmod(mode)
    return store, victim


def _headless(store: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*pibench_command(), "headless", "--saves", str(store), "--save", "c1", "--seed", "3"],
        input="print('played')\n",
        capture_output=True,
        text=True,
        env=dict(os.environ, PIBENCH_HOME=str(tmp_path / "home")),
        timeout=120,
    )


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to hand a folder to nobody")
def test_a_store_of_another_user_is_refused_and_its_links_never_followed(tmp_path):
    """A store folder owned by another user (nobody) holding a ``.lock`` link to a root file:
    ``pibench headless --save`` and ``pibench saves list`` exit 1 naming the owner; the
    root file is untouched."""
    store, victim = _plant(tmp_path, 0o755)
    os.chown(store, 65534, 65534)
    os.lchown(store / ".lock", 65534, 65534)
    run = _headless(store, tmp_path)
    assert run.returncode == 1, run.stderr
    assert "belongs to another user (uid 65534" in run.stderr
    assert victim.read_text() == VICTIM_TEXT
    listing = subprocess.run(
        [*pibench_command(), "saves", "list", "--saves", str(store)], capture_output=True, text=True, timeout=120
    )
    assert listing.returncode == 1 and "belongs to another user" in listing.stderr
    assert sorted(p.name for p in store.iterdir()) == [".lock"]


def test_a_store_others_may_write_to_is_refused(tmp_path):
    """A store folder of this user that group or others may write to (0777) is refused
    before anything is opened in it; the planted link's target is untouched."""
    store, victim = _plant(tmp_path, 0o777)
    run = _headless(store, tmp_path)
    assert run.returncode == 1, run.stderr
    assert "can be written by other users (mode 777)" in run.stderr
    assert victim.read_text() == VICTIM_TEXT
    assert sorted(p.name for p in store.iterdir()) == [".lock"]


def test_a_lock_file_link_is_never_followed(tmp_path):
    """In this user's own store a ``.lock`` that is a link fails the save (the message says
    why, the session still ends with its report) instead of writing the holder's note into
    the link's target."""
    store, victim = _plant(tmp_path, 0o700)
    run = _headless(store, tmp_path)
    assert "played" in run.stdout
    assert "could not save 'c1'" in run.stderr and "symbolic links" in run.stderr
    assert victim.read_text() == VICTIM_TEXT


def test_a_store_in_a_folder_another_user_can_change_is_refused(tmp_path):
    """The store folder is this user's own, but the folder holding it can be written by
    others (0777, no sticky bit) -- or, as root, belongs to nobody: its owner could rename
    the store away and put a link to any folder in its place between two writes. pibench
    refuses it naming that folder; a sticky world-writable parent (like /tmp) is fine."""
    shared = tmp_path / "shared"
    shared.mkdir()
    store = shared / "saves"
    store.mkdir(mode=0o700)
    shared.chmod(0o777)
    run = _headless(store, tmp_path)
    assert run.returncode == 1, run.stderr
    assert f"lies in {shared}, which other users can write to" in run.stderr
    shared.chmod(0o1777)
    assert _headless(store, tmp_path).returncode == 0
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        shared.chmod(0o755)
        os.chown(shared, 65534, 65534)
        run = _headless(store, tmp_path)
        assert run.returncode == 1 and f"lies in {shared}, which belongs to another user (uid 65534)" in run.stderr


def test_a_store_given_as_a_link_is_refused_like_a_run_folder(tmp_path):
    """``--saves LINK`` where LINK is a symbolic link (as a QA tester planted one owned by
    another user, pointing at a folder of this user) is refused with the message ``--out``
    gives, naming the link; the folder it points to is untouched. Before, the link was
    resolved and used."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.lchown(link, 65534, 65534)
    run = _headless(link, tmp_path)
    assert run.returncode == 1, run.stderr
    assert f"the save store {link} is a link; give the folder it points to with --saves DIR" in run.stderr
    assert list(real.iterdir()) == []
