"""Seeds for every command, public or sealed (MECHANICS Decisions 10).

One parser, :func:`parse_seeds`, reads ``101``, ``101-103``, ``1,5,9`` or ``@FILE`` (a
sealed-seed file written by ``pibench seal``). A **sealed** seed is drawn from the
``secrets`` module and kept secret while careers run: only its commitment is shown,
``SHA-256("pibench-seal/1|" + salt + "|" + seed)`` with a random 128-bit salt per seed, and
the file's commitment, ``SHA-256`` over the seed commitments joined in order. After the
evaluation, ``pibench unseal FILE`` reveals the seeds and salts so anyone can replay each
career from its action log and check the commitments.

File format (JSON): ``{"format": "pibench-seal/1", "seeds": [{"seed", "salt",
"commitment"}], "commitment"}``. Seeds are numbered from 0 in their file order everywhere:
``pibench seal`` and ``pibench unseal`` print ``seed #0`` first, ``--seed-index 0`` plays it,
and an error about a changed seed names the same number. The file is the secret: keep it
where agent code cannot read it (the agent process never can: it runs confined and holds no
files).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from world.config import SEED_MAX

__all__ = [
    "SEAL_FORMAT",
    "SealError",
    "SeedSpec",
    "commit_seed",
    "file_commitment",
    "parse_seeds",
    "read_seal",
    "require_confinement",
    "seal",
    "write_seal",
]

SEAL_FORMAT = "pibench-seal/1"
#: Sealed seeds are drawn below this bound: the whole range of world seeds (63 bits), so no
#: offline table of worlds by seed can cover a useful share of them (31 bits could be
#: enumerated: ~2e9 worlds).
SEAL_SEED_BOUND = SEED_MAX
#: Most seeds one seal file may hold.
MAX_SEALED = 10_000


MAX_SEAL_BYTES = 16 << 20
"""Most bytes read from a seal file (one of :data:`MAX_SEALED` seeds is ~1.7 MB): a "file" that
never ends, such as ``/dev/zero``, is refused instead of read until the memory runs out."""


class SealError(ValueError):
    """A sealed-seed file that cannot be used (missing, unreadable, tampered)."""


@dataclass(frozen=True)
class SeedSpec:
    """Seeds to play, and whether they are sealed.

    Attributes:
        seeds: The world seeds, in order (secret when ``sealed``: never show them to agents).
        sealed: Whether they came from a seal file.
        commitments: Per seed, its public commitment (hex; empty when not sealed).
        commitment: The seal file's commitment (hex; ``None`` when not sealed).
        source: The text parsed (``@FILE`` keeps the path).
    """

    seeds: list[int]
    sealed: bool = False
    commitments: list[str] = field(default_factory=list)
    commitment: str | None = None
    source: str = ""

    def label(self, index: int) -> str:
        """How seed ``index`` may be named where an agent could see it: the seed when
        public, ``sealed:<first 12 hex digits of its commitment>`` when sealed."""
        if self.sealed:
            return f"sealed:{self.commitments[index][:12]}"
        return str(self.seeds[index])


def commit_seed(seed: int, salt: str) -> str:
    """The public commitment of one sealed seed: SHA-256 hex of ``pibench-seal/1|salt|seed``."""
    return hashlib.sha256(f"{SEAL_FORMAT}|{salt}|{int(seed)}".encode()).hexdigest()


def file_commitment(commitments: list[str]) -> str:
    """The commitment of a seal file: SHA-256 hex of its seed commitments joined by ``,``."""
    return hashlib.sha256(",".join(commitments).encode()).hexdigest()


def count_wording() -> str:
    """How many seeds one seal file holds: ``"must be between 1 and 10,000"``."""
    return f"must be between 1 and {MAX_SEALED:,}"


def seal_count(text: str) -> int:
    """``pibench seal --count N``: an integer within 1..:data:`MAX_SEALED` (argparse's usage
    error, exit 2, otherwise)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= MAX_SEALED:
        raise argparse.ArgumentTypeError(f"{count_wording()}, got {text!r}")
    return value


def seal(count: int) -> dict[str, Any]:
    """Draw ``count`` secret seeds (``secrets``) with their salts and commitments.

    Raises:
        SealError: ``count`` outside 1..:data:`MAX_SEALED`.
    """
    if not 1 <= int(count) <= MAX_SEALED:
        raise SealError(f"--count {count_wording()}, got {count}")
    rows: list[dict[str, Any]] = []
    for _ in range(int(count)):
        seed = 1 + secrets.randbelow(SEAL_SEED_BOUND - 1)
        salt = secrets.token_hex(16)
        rows.append({"seed": seed, "salt": salt, "commitment": commit_seed(seed, salt)})
    return {"format": SEAL_FORMAT, "seeds": rows, "commitment": file_commitment([r["commitment"] for r in rows])}


def write_seal(data: dict[str, Any], path: str | Path) -> None:
    """Write a seal file readable by its owner only (created new: never overwrites).

    Raises:
        SealError: The file exists or cannot be written.
    """
    try:
        fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise SealError(f"cannot create {path}: {exc.strerror} (a seal file is never overwritten)") from None
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")


def read_seal(path: str | Path) -> dict[str, Any]:
    """Read and verify a seal file (every commitment recomputed).

    Raises:
        SealError: Missing, not a seal file, or a seed, salt or commitment changed.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SEAL_BYTES + 1)
        if len(raw) > MAX_SEAL_BYTES:
            raise SealError(
                f"cannot read the seal file {path}: larger than {MAX_SEAL_BYTES:,} bytes, which no seal file is"
            )
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError) as exc:
        if isinstance(exc, SealError):
            raise
        raise SealError(f"cannot read the seal file {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != SEAL_FORMAT or not isinstance(data.get("seeds"), list):
        raise SealError(f"{path} is not a {SEAL_FORMAT} file (write one with `pibench seal --count N --out FILE`)")
    commitments = []
    for i, row in enumerate(data["seeds"]):
        ok = (
            isinstance(row, dict)
            and type(row.get("seed")) is int
            and isinstance(row.get("salt"), str)
            and row.get("commitment") == commit_seed(row["seed"], row["salt"])
        )
        if not ok:
            raise SealError(f"{path}: seed #{i} does not match its commitment (the file was changed)")
        commitments.append(row["commitment"])
    if not commitments or data.get("commitment") != file_commitment(commitments):
        raise SealError(f"{path}: the file commitment does not match its seeds (the file was changed)")
    return data


def parse_seeds(text: str, *, unique: bool = False) -> SeedSpec:
    """``101``, ``101-103``, ``1,5,9`` (public) or ``@FILE`` (sealed) -> :class:`SeedSpec`.

    Args:
        text: The seed list.
        unique: Refuse a seed given twice (``pibench agent`` and plans: one run folder per
            seed, a second career would race the first for it). Sweeps (``pibench run``)
            may repeat a seed.

    Raises:
        ValueError: A malformed list or range (the message shows the valid forms), or, with
            ``unique``, a seed given twice (``101,101``, ``101-103,102``);
            :class:`SealError` for an unusable seal file.
    """
    text = str(text).strip()
    if text.startswith("@"):
        data = read_seal(text[1:])
        return SeedSpec(
            seeds=[int(r["seed"]) for r in data["seeds"]],
            sealed=True,
            commitments=[str(r["commitment"]) for r in data["seeds"]],
            commitment=str(data["commitment"]),
            source=text,
        )
    from world.runner import parse_seeds as parse_public

    seeds = parse_public(text)
    seen: set[int] = set()
    for seed in seeds if unique else ():
        if seed in seen:
            # one career per seed: a second would race the first for its run folder
            raise ValueError(f"bad seeds {text!r}: seed {seed} is given twice; name each seed once")
        seen.add(seed)
    return SeedSpec(seeds=seeds, source=text)


def require_confinement(allow_incomplete: bool = False) -> str | None:
    """The hook a sealed evaluation passes before it starts: ``None`` when the OS confines
    the agent process completely as far as pibench can tell without one
    (:func:`pibench_tui.sandbox.confine.confinement_status`), else the reason a sealed run is
    refused. Only a first check: each agent process must then prove it in its handshake
    (``Sandbox(require_complete=True)``). ``allow_incomplete``
    (``--allow-incomplete-confinement``): never refuse."""
    if allow_incomplete:
        return None
    try:
        from pibench_tui.sandbox.confine import confinement_status
    except ImportError:  # pragma: no cover - confinement not built on this platform
        return "the OS confinement of agent processes is not available"
    status = confinement_status()
    if getattr(status, "complete", False):
        return None
    describe = getattr(status, "describe", None)
    detail = describe() if callable(describe) else ", ".join(getattr(status, "missing", ()))
    return (
        f"the OS confinement of agent processes is incomplete ({detail}); --allow-incomplete-confinement runs it anyway"
    )
