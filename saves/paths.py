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
