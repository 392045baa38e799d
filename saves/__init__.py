"""Save and resume careers: a crash-safe save store on tinydb (``SaveStore``).

Only this package touches tinydb. See ``docs/saves.md`` for the guarantees and the file
format, and :mod:`saves.store` for the store's layout.
"""

from __future__ import annotations

from saves.codec import FORMAT_VERSION
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
from saves.paths import default_store_dir, pibench_home
from saves.store import (
    DEFAULT_KEEP,
    SaveCaches,
    SaveInfo,
    SaveRecord,
    SaveStore,
    autosave_name,
    describe_world,
    read_save_file,
)
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
