"""Save and resume careers: a crash-safe save store on tinydb (``SaveStore``).

Only this package touches tinydb. See ``docs/saves.md`` for the guarantees and the file
format, and :mod:`saves.store` for the store's layout.
"""

from __future__ import annotations

from saves.codec import FORMAT_VERSION
from saves.deltas import SaveCaches, describe_world
from saves.errors import (
    CareerLockedError,
    SaveCorruptError,
    SaveError,
    SaveExistsError,
    SaveNotFoundError,
    SaveValueError,
    StoreLockedError,
    StoreWarning,
)
from saves.files import read_save_file
from saves.names import autosave_name
from saves.paths import default_store_dir, pibench_home
from saves.records import SaveInfo, SaveRecord
from saves.store import DEFAULT_KEEP, SaveStore
from saves.writer import CareerSaves

__all__ = [
    "DEFAULT_KEEP",
    "CareerLockedError",
    "CareerSaves",
    "FORMAT_VERSION",
    "SaveCorruptError",
    "SaveError",
    "SaveCaches",
    "SaveExistsError",
    "SaveInfo",
    "SaveNotFoundError",
    "SaveRecord",
    "SaveStore",
    "SaveValueError",
    "StoreLockedError",
    "StoreWarning",
    "autosave_name",
    "default_store_dir",
    "describe_world",
    "pibench_home",
    "read_save_file",
]
