"""The errors and warnings of the save store.

Every error is a :class:`SaveError`; front ends print ``str(error)`` as it is (each message
says what went wrong and what to do) and exit with status 1.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias, get_args

CorruptKind: TypeAlias = Literal[
    "corrupt", "truncated", "future-version", "tampered", "not-a-save", "unreadable", "mismatch"
]
"""Why a save (or the store's index) is unusable (:attr:`SaveCorruptError.kind`)."""


class SaveError(Exception):
    """Base class of every save-store error; the message is meant for the player."""


class SaveNotFoundError(SaveError, KeyError):
    """No save of that name exists in the store."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "save not found"


class SaveExistsError(SaveError):
    """A save of that name exists already and overwriting was not asked for."""


class SaveValueError(SaveError, ValueError):
    """A value in the career's state cannot be written to JSON (nothing was written).

    Attributes:
        path: where the value sits, e.g. ``state.ledger[3].amount``.
        value: the offending value.
    """

    def __init__(self, path: str, value: Any, why: str) -> None:
        self.path = path
        self.value = value
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        super().__init__(f"cannot save: {why} (at {path}: {shown}); nothing was written")


class SaveCorruptError(SaveError):
    """A save (or the store's index) is unusable; nothing of it was loaded.

    Attributes:
        kind: one of ``"corrupt"``, ``"truncated"``, ``"future-version"``, ``"tampered"``,
            ``"not-a-save"``, ``"unreadable"``, ``"mismatch"``.
        path: the file concerned.
    """

    KINDS: ClassVar[tuple[CorruptKind, ...]] = get_args(CorruptKind)

    def __init__(self, kind: CorruptKind, path: str, detail: str) -> None:
        assert kind in self.KINDS, kind
        self.kind: CorruptKind = kind
        self.path = path
        self.detail = detail
        super().__init__(f"{detail} [{kind}: {path}]")


class StoreLockedError(SaveError):
    """Another process kept the store's write lock longer than we were willing to wait."""


class CareerLockedError(StoreLockedError):
    """Another session is playing the career and writing its saves (:class:`saves.lock.CareerLock`).

    Attributes:
        career: the career's name as this session asked for it.
    """

    def __init__(self, career: str, message: str) -> None:
        self.career = career
        super().__init__(message)


class StoreWarning(UserWarning):
    """Something was recovered (e.g. the index was read from its backup); shown to the player."""
