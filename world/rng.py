"""Random numbers: named persistent streams and entity-keyed draws (MECHANICS.md §13).

Two kinds of randomness, both derived from the scenario seed with SHA-256 (never Python's
salted ``hash()``), so results are identical across processes and machines:

* **Persistent streams** (``field``, ``grants``, ``field_traj``, ``crowd``, ``climate``,
  ``shock``): one ``numpy.random.Generator`` (PCG64) each, seeded from
  ``SeedSequence(sha256("seed|stream|name")[:16])``, consumed in tick order; their states are
  part of the saved world.
* **Keyed draws**: every other draw uses a generator whose whole PCG64 state is the
  SHA-256 of ``"seed|k1|k2|..."`` (state from the first 16 bytes, increment from the next
  16). No draw depends on how many draws came before it, so an unrelated action never shifts
  another subsystem's luck. For speed one generator object is re-seeded in place; the
  generator returned by :meth:`Rng.keyed` is therefore valid only until the next call.

Re-seeding in place: where this numpy lays PCG64's state out as two little-endian 128-bit
integers (checked once at import against numpy's own ``state`` setter, see
:func:`_fast_reseed_works`), the 32 digest bytes are copied straight into the generator's
state (about 0.4 µs); elsewhere the documented ``state`` setter is used (about 1 µs more).
Both give the same draws.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

STREAMS: tuple[str, ...] = ("field", "grants", "field_traj", "crowd", "climate", "shock")
"""The persistent, agent-independent streams (MECHANICS.md §13)."""

_MASK128 = (1 << 128) - 1
_ZERO8 = bytes(8)


def _builtin_sha256() -> Callable[[bytes], Any]:
    """The interpreter's own SHA-256 (``_sha2.sha256``, ``_sha256.sha256`` before Python
    3.12) when it exists and agrees with :func:`hashlib.sha256` on a few probes, else
    ``hashlib.sha256``. The same digests either way (it is SHA-256); the built-in one skips
    OpenSSL's context set-up, about a quarter of the cost of a keyed draw's short key.
    """
    for name in ("_sha2", "_sha256"):
        try:
            fn = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        probes = (b"", b"1|probe", b"-7|review|D001|NAIC|3", b"x" * 200)
        if all(fn(p).digest() == hashlib.sha256(p).digest() for p in probes):
            return fn  # type: ignore[no-any-return]
    return hashlib.sha256


_sha256 = _builtin_sha256()
"""SHA-256 of a key's bytes for keyed draws (see :func:`_builtin_sha256`)."""


def key_digest(seed: int, *key: object) -> bytes:
    """SHA-256 digest of ``"seed|k1|k2|..."`` (32 bytes).

    Args:
        seed: the scenario seed.
        *key: the entity key parts; each is rendered with ``str()``.
    """
    text = "|".join([str(int(seed))] + [str(k) for k in key])
    return hashlib.sha256(text.encode("utf-8")).digest()


def stream_generator(seed: int, name: str) -> np.random.Generator:
    """A fresh persistent stream generator for ``name`` (MECHANICS.md §13)."""
    entropy = int.from_bytes(key_digest(seed, "stream", name)[:16], "little")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def branch_stream_generator(seed: int, name: str, branch: int, month: int) -> np.random.Generator:
    """The persistent stream ``name`` of branch ``branch`` forked at the start of ``month``:
    seeded from the key ``("stream", name, "branch", branch, "month", month)`` (MECHANICS
    Decisions 12)."""
    entropy = int.from_bytes(key_digest(seed, "stream", name, "branch", branch, "month", month)[:16], "little")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


class Rng:
    """The world's randomness: named streams plus keyed draws.

    Args:
        seed: the scenario seed (any int; negative values are allowed).
        branch: the branch of a forked world (MECHANICS Decisions 12); 0, the unforked
            world, draws exactly as §13 says. In branch ``b`` ≥ 1 keyed draws use the key
            text ``"seed|branch-b|k1|k2|…"`` (see :meth:`fork` for the streams).
        streams: the persistent streams by name (:meth:`fork`'s); default: each seeded as
            §13 says (:func:`stream_generator`).
    """

    def __init__(self, seed: int, branch: int = 0, streams: dict[str, np.random.Generator] | None = None) -> None:
        self.seed = int(seed)
        self.branch = int(branch)
        if streams is None:
            streams = {name: stream_generator(self.seed, name) for name in STREAMS}
        self.streams: dict[str, np.random.Generator] = streams
        self._bg = np.random.PCG64(0)
        self._gen = np.random.Generator(self._bg)
        self._state = self._bg.state
        self._prefix = f"{self.seed}|" if self.branch == 0 else f"{self.seed}|branch-{self.branch}|"
        self._words: memoryview | None = None  # PCG64's (state, inc) bytes, fast re-seed only
        self._flags: memoryview | None = None  # its (has_uint32, uinteger) bytes
        if _FAST_RESEED:
            self._words, self._flags = _state_views(self._bg)

    def stream(self, name: str) -> np.random.Generator:
        """The persistent generator named ``name``; raises ``KeyError`` for an unknown name."""
        return self.streams[name]

    def keyed(self, *key: object) -> np.random.Generator:
        """A generator determined by the seed and ``key`` alone.

        The returned object is shared: draw what you need before calling ``keyed`` again.
        """
        if key:
            return self.keyed_text("|".join(map(str, key)))
        return self._keyed_digest(_sha256(self._prefix[:-1].encode("utf-8")).digest())

    def keyed_text(self, text: str) -> np.random.Generator:
        """:meth:`keyed` for key parts already joined: ``keyed_text("citations|P001|7")`` is
        ``keyed("citations", "P001", 7)`` (each part as ``str()`` renders it, joined by
        ``"|"``; an f-string such as ``f"citations|{pub_id}|{m}"`` renders ints and strings
        the same way and costs a fraction of the join). ``text`` must not be empty.

        The returned object is shared: draw what you need before calling again.
        """
        words = self._words
        if words is not None:
            digest = _sha256((self._prefix + text).encode("utf-8")).digest()
            words[:] = digest
            words[16] = digest[16] | 1  # inc is odd: the low bit of its little-endian first byte
            self._flags[:] = _ZERO8  # type: ignore[index]
            return self._gen
        return self._keyed_digest(_sha256((self._prefix + text).encode("utf-8")).digest())

    def _keyed_digest(self, digest: bytes) -> np.random.Generator:
        """The shared keyed generator seeded from a key digest through numpy's ``state`` setter."""
        inner = self._state["state"]
        inner["state"] = int.from_bytes(digest[:16], "little")
        inner["inc"] = int.from_bytes(digest[16:32], "little") | 1
        self._bg.state = self._state
        return self._gen

    def to_state(self) -> dict[str, Any]:
        """JSON-able states of the persistent streams (big integers as hex strings)."""
        out = {}
        for name, gen in self.streams.items():
            st = gen.bit_generator.state
            out[name] = {
                "state": format(st["state"]["state"], "x"),
                "inc": format(st["state"]["inc"], "x"),
                "has_uint32": int(st["has_uint32"]),
                "uinteger": int(st["uinteger"]),
            }
        if self.branch:  # branch 0 keeps the unforked world's state (and saves, digests) as they were
            return {"seed": self.seed, "branch": self.branch, "streams": out}
        return {"seed": self.seed, "streams": out}

    def fork(self, branch: int, month: int) -> Rng:
        """The randomness of branch ``branch`` of a world forked at the start of ``month``
        (MECHANICS Decisions 12): keyed draws from then on use ``"seed|branch-b|…"``; each
        persistent stream is re-seeded from ``("stream", name, "branch", b, "month", m)``.

        Raises:
            ValueError: ``branch`` < 1 (branch 0 is the unforked world: nothing to fork).
        """
        if int(branch) < 1:
            raise ValueError(f"a fork's branch is 1 or more (0 is the unforked world), got {branch}")
        b = int(branch)
        return Rng(self.seed, b, {name: branch_stream_generator(self.seed, name, b, int(month)) for name in STREAMS})

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Rng:
        """Rebuild from :meth:`to_state` output; the streams continue exactly where they were."""
        rng = cls(int(data["seed"]), int(data.get("branch", 0)))
        for name, st in data["streams"].items():
            bg = rng.streams[name].bit_generator
            bg.state = {
                "bit_generator": "PCG64",
                "state": {"state": int(st["state"], 16) & _MASK128, "inc": int(st["inc"], 16) & _MASK128},
                "has_uint32": int(st["has_uint32"]),
                "uinteger": int(st["uinteger"]),
            }
        return rng


def _slow_keyed(bg: np.random.PCG64, digest: bytes) -> None:
    """Seed ``bg`` from a key digest through numpy's documented ``state`` setter."""
    state = bg.state
    state["state"]["state"] = int.from_bytes(digest[:16], "little")
    state["state"]["inc"] = int.from_bytes(digest[16:32], "little") | 1
    state["has_uint32"] = 0
    state["uinteger"] = 0
    bg.state = state


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _state_address(bg: np.random.PCG64) -> int:
    """Address of ``bg``'s PCG64 state struct: the first field of the ``bitgen_t`` its
    ``capsule`` holds, the same number as ``bg.ctypes.state_address`` (checked at import by
    :func:`_fast_reseed_works`) without building the ``ctypes`` interface (~20 µs a bit
    generator)."""
    bitgen = _capsule_pointer(bg.capsule, b"BitGenerator")
    addr = ctypes.c_void_p.from_address(bitgen).value
    if not addr:
        raise ValueError("PCG64 bit generator without a state")
    return addr


# The two ctypes array types, made once: ctypes keeps an array type only while something
# refers to it, and a type refers to itself, so one made per call left a little cyclic
# garbage behind every Rng (the collector's work, and memory until it ran).
_BYTES32 = ctypes.c_char * 32
_BYTES8 = ctypes.c_char * 8


def _state_views(bg: np.random.PCG64) -> tuple[memoryview, memoryview]:
    """Writable byte views of ``bg``'s 32 bytes of (state, inc) and 8 bytes of
    (has_uint32, uinteger); valid while ``bg`` lives."""
    addr = _state_address(bg)
    pcg = ctypes.c_void_p.from_address(addr).value
    if not pcg:
        raise ValueError("PCG64 state pointer is null")
    words = memoryview(_BYTES32.from_address(pcg)).cast("B")
    flags = memoryview(_BYTES8.from_address(addr + ctypes.sizeof(ctypes.c_void_p))).cast("B")
    return words, flags


def _fast_reseed_works() -> bool:
    """True when copying digest bytes into PCG64's memory equals the ``state`` setter.

    Checks the layout (pointer to two little-endian 128-bit words, then ``has_uint32`` and
    ``uinteger``) by seeding both ways and comparing the full state and a mix of draws
    (doubles, normals, bounded integers that use the cached 32-bit half).
    """
    if sys.byteorder != "little" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    try:
        fast = np.random.PCG64(0)
        slow = np.random.PCG64(0)
        if _state_address(fast) != fast.ctypes.state_address:
            return False
        gen_fast, gen_slow = np.random.Generator(fast), np.random.Generator(slow)
        words, flags = _state_views(fast)
        for text in (b"1|probe", b"-7|probe|S001|12", b"0|x"):
            gen_fast.integers(0, 36, size=3)  # leave a cached 32-bit half behind
            digest = hashlib.sha256(text).digest()
            words[:] = digest
            words[16] |= 1
            flags[:] = _ZERO8
            _slow_keyed(slow, digest)
            if fast.state != slow.state:
                return False
            a = [
                gen_fast.random(),
                gen_fast.normal(),
                gen_fast.integers(36),
                gen_fast.poisson(3.0),
                *gen_fast.integers(0, 36, size=5).tolist(),
            ]
            b = [
                gen_slow.random(),
                gen_slow.normal(),
                gen_slow.integers(36),
                gen_slow.poisson(3.0),
                *gen_slow.integers(0, 36, size=5).tolist(),
            ]
            if a != b:
                return False
        return True
    except Exception:  # any surprise in numpy's layout: use the documented setter
        return False


_FAST_RESEED = _fast_reseed_works()
