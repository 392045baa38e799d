"""Where the save store lives.

Precedence (highest first):

1. an explicit directory (``--saves DIR`` on the command line, ``SaveStore(DIR)`` in code);
2. ``$PIBENCH_HOME/saves`` when the ``PIBENCH_HOME`` environment variable is set;
3. ``<user data dir>/pibench/saves`` from :mod:`platformdirs` (e.g.
   ``~/.local/share/pibench/saves`` on Linux).

Nothing is created here: the store makes its folder on the first write.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import platformdirs

ENV_HOME = "PIBENCH_HOME"
"""Environment variable that moves every pibench file (saves included) under one folder."""


def pibench_home() -> Path:
    """The folder for pibench's own files: ``$PIBENCH_HOME`` or the platform's user data dir.

    Returns:
        An absolute path (not created).
    """
    env = os.environ.get(ENV_HOME, "").strip()
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_data_dir("pibench", appauthor=False)).resolve()


def default_store_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the save-store folder.

    Args:
        explicit: a folder given by the user (``--saves DIR``); wins when not ``None``.

    Returns:
        An absolute path (not created).
    """
    if explicit is not None and str(explicit) != "":
        return Path(explicit).expanduser().resolve()
    return pibench_home() / "saves"


def foreign_store_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the existing folder ``path`` cannot be this process's save store, or ``None``.

    A store is refused when it belongs to another user, when users other than its owner
    may write to it (group or others), when it is a link, or when a folder above it may be
    changed by another user (owned by someone other than root or this user, or writable by
    group or others without the sticky bit): any of them could plant a link (``.lock``
    pointing at a file of this user, root's included), replace the index, saves and key, or
    swap the whole folder for a link elsewhere under this process. A folder that does not
    exist yet is no problem (the store creates it ``0700``; its parents are checked once it
    exists). Not checked where the platform has no user ids (Windows).
    """
    if not hasattr(os, "geteuid"):  # pragma: no cover - Windows
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    me = os.geteuid()
    if stat.S_ISLNK(st.st_mode):
        return f"the save store {path} is a link; give the folder it points to with --saves DIR"
    if st.st_uid != me:
        return (
            f"the save store {path} belongs to another user (uid {st.st_uid}, this process runs as uid {me}); "
            "pibench uses only a store of its own user: choose your own folder with --saves DIR (or PIBENCH_HOME), "
            "or copy the saves you want into one"
        )
    if st.st_mode & 0o022:
        return (
            f"the save store {path} can be written by other users (mode {st.st_mode & 0o777:o}); "
            f"make it yours alone (chmod 700 {path}) or choose another folder with --saves DIR"
        )
    for parent in Path(os.path.abspath(path)).parents:
        try:
            up = os.stat(parent)
        except OSError:
            continue
        if up.st_uid not in (0, me):
            return (
                f"the save store {path} lies in {parent}, which belongs to another user (uid {up.st_uid}): "
                "that user could replace the store; choose a folder of your own with --saves DIR"
            )
        if up.st_mode & 0o022 and not up.st_mode & stat.S_ISVTX:
            return (
                f"the save store {path} lies in {parent}, which other users can write to "
                f"(mode {up.st_mode & 0o777:o}, no sticky bit): they could replace the store; "
                "choose a folder of your own with --saves DIR"
            )
    return None
