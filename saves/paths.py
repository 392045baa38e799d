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
    """Why the existing folder ``path`` cannot be this process's save store, or ``None``
    (:func:`foreign_folder_problem` of a store: ``--saves DIR`` or ``PIBENCH_HOME`` choose
    another; a file there is refused too, else it would read as an empty store)."""
    option = "--saves DIR (or PIBENCH_HOME)"
    if os.path.exists(path) and not os.path.isdir(path) and not os.path.islink(path):
        return f"the save store {path} is a file, not a folder; choose a folder with {option}"
    return foreign_folder_problem(path, "the save store", option)


def foreign_folder_problem(path: str | os.PathLike[str], what: str, option: str) -> str | None:
    """Why the existing folder ``path`` cannot hold this process's files, or ``None``.

    A folder is refused when it belongs to another user, when users other than its owner
    may write to it (others, or a group other than this process's own: a private group of
    one, ``umask 002``, is fine), when it is a link, or when a folder above it may be
    changed by another user (owned by someone other than root or this user, or writable in
    that way without the sticky bit): any of them could plant a link (a ``.lock`` or
    a log pointing at a file of this user, root's included), replace what is in it, or swap
    the whole folder for a link elsewhere under this process. A folder that does not exist
    yet is no problem (check it again once created). Not checked where the platform has no
    user ids (Windows).

    Args:
        path: The folder.
        what: How messages name it (``"the save store"``, ``"the run folder"``).
        option: The option that chooses another (``"--saves DIR"``).
    """
    if not hasattr(os, "geteuid"):  # pragma: no cover - Windows
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    me = os.geteuid()

    def shared(st: os.stat_result) -> bool:  # writable by users other than root and this one
        return bool(st.st_mode & 0o002 or (st.st_mode & 0o020 and st.st_gid not in (0, os.getegid())))

    if stat.S_ISLNK(st.st_mode):
        return f"{what} {path} is a link; give the folder it points to with {option}"
    if st.st_uid != me:
        return (
            f"{what} {path} belongs to another user (uid {st.st_uid}, this process runs as uid {me}); "
            f"pibench writes only in folders of its own user: choose your own folder with {option}, "
            "or copy what you want from it into one"
        )
    if shared(st):
        return (
            f"{what} {path} can be written by other users (mode {st.st_mode & 0o777:o}); "
            f"make it yours alone (chmod 700 {path}) or choose another folder with {option}"
        )
    for parent in Path(os.path.abspath(path)).parents:
        try:
            up = os.stat(parent)
        except OSError:
            continue
        if up.st_uid not in (0, me):
            return (
                f"{what} {path} lies in {parent}, which belongs to another user (uid {up.st_uid}): "
                f"that user could replace it; choose a folder of your own with {option}"
            )
        if shared(up) and not up.st_mode & stat.S_ISVTX:
            return (
                f"{what} {path} lies in {parent}, which other users can write to "
                f"(mode {up.st_mode & 0o777:o}, no sticky bit): they could replace it; "
                f"choose a folder of your own with {option}"
            )
    return None
