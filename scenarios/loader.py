"""Read and validate scenario files (TOML, read with :mod:`tomllib`).

A scenario file::

    name = "short-12"                 # required: a label
    description = "One year only."    # optional
    seed = 101                        # optional (default: DEFAULT_SEED)
    months = 12                       # optional shortcuts for the most used WorldConfig
    start_budget = 600000             #   fields: months, start_budget, frozen_field,
    frozen_field = false              #   no_scooping, unlimited_attention
    [world]                           # optional: any other WorldConfig parameter
    service_tax_hours = 0.0
    [world.pools.elite]               # a table parameter may be changed in part
    volume = 3.0

Every problem in a file is reported at once, each naming its key: unknown keys (with a
"did you mean" and the list of valid keys), wrong types, values outside the parameter's
``min``/``max`` and the cross-field rules. The world parameters are checked by the one
validator, :meth:`world.config.WorldConfig.from_dict` (``WorldConfig.check``); this module
only adds the file's own keys (name, description, seed) and where each key was written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from world.config import ConfigError, WorldConfig, seed_problem
from world.config import short_repr as _show
from world.config import unknown_key as _unknown
from world.config import value_kind as _kind

DEFAULT_SCENARIO = "standard"
"""The scenario used when none is named."""

DEFAULT_SEED = 1001
"""Seed of a scenario file that gives none; also the ``standard`` scenario's seed.

``standard`` is the world to practise and develop on, so it uses a tuning seed (1001, as
MECHANICS §17 tunes the baseline on 1001-1002) and keeps the evaluation seeds 101-103 of
``eval-101`` .. ``eval-103`` held out.
"""


SHORTCUTS = ("months", "start_budget", "frozen_field", "no_scooping", "unlimited_attention")
"""``WorldConfig`` fields that may also be set at a scenario file's top level."""

TOP_KEYS = ("name", "description", "seed", *SHORTCUTS, "world")
"""Every key a scenario file may have at its top level."""

BUNDLED_ORDER = (
    "standard",
    "tutorial",
    "eval-101",
    "eval-102",
    "eval-103",
    "short-12",
    "mid-30",
    "frozen-field",
    "unlimited-attention",
    "no-scooping",
)
"""Listing order of the bundled scenarios (others follow alphabetically)."""


class ScenarioError(ValueError):
    """A scenario cannot be found or its file is invalid; the message lists every problem.

    Attributes:
        source: the file (or name) concerned.
        problems: one message per problem, each starting with the key it concerns.
    """

    def __init__(self, source: str, problems: list[str] | str) -> None:
        self.source = source
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        if len(self.problems) == 1:
            text = f"{source}: {self.problems[0]}"
        else:
            text = f"{source}: {len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(text)


@dataclass(frozen=True)
class Scenario:
    """A named world: a seed plus a full :class:`WorldConfig`.

    Attributes:
        name: the scenario's name (``"standard"``, ``"eval-101"``, ...).
        description: what it is for, in a sentence or two.
        seed: the world seed (the ``--seed`` option replaces it).
        config: every world parameter.
        source: ``"bundled"`` or the path of the file it was read from.
        overrides: the values the file set, as written (nested like the file).
        seed_commitment: the public commitment when ``seed`` is a sealed seed (else ``None``).
    """

    name: str
    description: str
    seed: int
    config: WorldConfig
    source: str = "bundled"
    overrides: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: The public commitment of a sealed seed (``pibench seal``): saves of this career keep
    #: it, and every front end that opens them withholds the seed (issue 25 §3).
    seed_commitment: str | None = None

    def with_seed(self, seed: int | None) -> Scenario:
        """This scenario with another seed (``None`` keeps it).

        Raises:
            ScenarioError: the seed is not an integer in ``0..world.config.SEED_MAX``.
        """
        if seed is None:
            return self
        problem = _check_seed(seed)
        if problem:
            raise ScenarioError(self.name, f"--seed: {problem}")
        return dataclasses.replace(self, seed=int(seed))

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "seed", "config"}`` as plain JSON-able data."""
        return {"name": self.name, "description": self.description, "seed": self.seed, "config": self.config.to_dict()}

    def changes(self) -> dict[str, tuple[Any, Any]]:
        """Parameters that differ from the default world, as ``{"path": (default, value)}``.

        Paths of table entries are dotted, e.g. ``"pools.elite.volume"``.
        """
        out: dict[str, tuple[Any, Any]] = {}
        _diff("", WorldConfig().to_dict(), self.config.to_dict(), out)
        return out


def _diff(prefix: str, old: Any, new: Any, out: dict[str, tuple[Any, Any]]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in new:
            _diff(f"{prefix}.{k}" if prefix else str(k), old.get(k), new[k], out)
    elif old != new:
        out[prefix] = (old, new)


# -- type checking -------------------------------------------------------------------------
def _check_seed(seed: Any) -> str | None:
    return seed_problem(seed)


# -- parsing -------------------------------------------------------------------------------
def _header_problems(name: Any, description: Any, seed: Any) -> list[str]:
    """What is wrong with a scenario's name, description and seed (each naming its key)."""
    problems = []
    if name is None:
        problems.append("name: missing; every scenario needs a name")
    elif not isinstance(name, str) or not name.strip():
        problems.append(f"name: must be non-empty text, got {_kind(name)} {_show(name)}")
    elif len(name) > 80 or any(ord(c) < 32 for c in name):
        problems.append("name: must be at most 80 characters, without control characters")
    if not isinstance(description, str):
        problems.append(f"description: must be text, got {_kind(description)} {_show(description)}")
    seed_problem_text = _check_seed(seed)
    if seed_problem_text:
        problems.append(f"seed: {seed_problem_text}")
    return problems


def _world_overrides(
    data: Mapping[str, Any], shortcuts: list[str], problems: list[str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The world parameters a scenario sets (top-level shortcuts and ``[world]``) and the key
    path of each, for messages; a key set twice or a ``world`` that is not a table is added
    to ``problems``."""
    overrides: dict[str, Any] = {key: data[key] for key in shortcuts if key in data}
    paths = {key: key for key in overrides}
    world = data.get("world", {})
    if not isinstance(world, dict):
        problems.append(f"world: must be a table ([world]), got {_kind(world)} {_show(world)}")
        world = {}
    for key, value in world.items():
        if key in overrides:
            problems.append(f"world.{key}: set twice, at the top level and in [world]; keep one")
            continue
        overrides[key] = value
        paths[key] = f"world.{key}"
    return overrides, paths


def parse_scenario(data: Mapping[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate parsed TOML data and build the :class:`Scenario`.

    Args:
        data: the file's top-level table.
        source: where it came from, for messages.

    Returns:
        The scenario.

    Raises:
        ScenarioError: every problem found, each naming its key.
    """
    fields = {f.name for f in dataclasses.fields(WorldConfig)}
    shortcuts = [k for k in SHORTCUTS if k in fields]
    top_valid = [k for k in TOP_KEYS if k not in SHORTCUTS or k in fields]
    problems = [_unknown(key, key, top_valid, "key") for key in data if key not in top_valid]
    name, description, seed = data.get("name"), data.get("description", ""), data.get("seed", DEFAULT_SEED)
    problems += _header_problems(name, description, seed)
    overrides, paths = _world_overrides(data, shortcuts, problems)

    # The one validator of world parameters (WorldConfig): types, ranges, unknown keys, cross-field rules.
    try:
        config = WorldConfig.from_dict(overrides, paths)  # tables merge into the defaults
    except ConfigError as exc:
        problems += exc.problems
        config = None
    if problems or config is None or not isinstance(name, str):  # a bad name is already a problem
        raise ScenarioError(source, problems)
    return Scenario(
        name=name, description=description.strip(), seed=int(seed), config=config, source=source, overrides=overrides
    )


def read_scenario_text(text: str, source: str = "<scenario>") -> Scenario:
    """Parse TOML text into a :class:`Scenario`.

    Raises:
        ScenarioError: invalid TOML or any validation problem.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(source, f"not valid TOML: {exc}") from None
    return parse_scenario(data, source)


MAX_SCENARIO_BYTES = 1 << 20
"""Most bytes read from a scenario file (the bundled ones are under 1 kB): a "file" that never
ends, such as ``/dev/zero``, is refused instead of read until the memory runs out."""


def read_scenario_file(path: str | os.PathLike[str], *, source: str | None = None) -> Scenario:
    """Read a scenario file.

    Args:
        path: the ``.toml`` file.
        source: the label used in messages and :attr:`Scenario.source` (default: the path).

    Raises:
        ScenarioError: the file is missing, unreadable, larger than :data:`MAX_SCENARIO_BYTES`,
            not UTF-8, not TOML, or invalid.
    """
    p = Path(path)
    label = source or str(p)
    try:
        with open(p, "rb") as fh:  # a pipe (``--scenario <(...)``) works too
            raw = fh.read(MAX_SCENARIO_BYTES + 1)
    except FileNotFoundError:
        raise ScenarioError(label, "no such scenario file") from None
    except OSError as exc:
        raise ScenarioError(label, f"cannot read the file ({exc.strerror})") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            label, f"larger than {MAX_SCENARIO_BYTES:,} bytes, which no scenario file is (is it the right file?)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(label, "not valid TOML: the file is not UTF-8 text") from None
    return read_scenario_text(text, label)


# -- the bundled scenarios -----------------------------------------------------------------
_HERE = Path(__file__).resolve().parent


def _bundled_files() -> dict[str, Path] | None:
    """The bundled ``*.toml`` files by name, read from the package folder; ``None`` when the
    package is not a plain folder (a zip import: then :mod:`importlib.resources` is used,
    which costs start-up time because it imports tempfile, shutil and zipfile)."""
    if not (_HERE / "__init__.py").is_file():
        return None
    return {p.name[:-5]: p for p in _HERE.iterdir() if p.name.endswith(".toml")}


def bundled_names() -> list[str]:
    """Names of the scenarios shipped with pibench, in listing order."""
    files = _bundled_files()
    if files is not None:
        names = list(files)
    else:
        from importlib import resources

        names = [p.name[:-5] for p in resources.files("scenarios").iterdir() if p.name.endswith(".toml")]
    known = [n for n in BUNDLED_ORDER if n in names]
    return known + sorted(n for n in names if n not in BUNDLED_ORDER)


def _bundled(name: str) -> Scenario:
    files = _bundled_files()
    if files is not None and name in files:
        scen = read_scenario_file(files[name], source=f"bundled scenario {name!r}")
    else:
        from importlib import resources

        res = resources.files("scenarios").joinpath(f"{name}.toml")
        with resources.as_file(res) as p:
            scen = read_scenario_file(p, source=f"bundled scenario {name!r}")
    return dataclasses.replace(scen, source="bundled")


def list_scenarios() -> list[Scenario]:
    """Every bundled scenario, in listing order.

    Raises:
        ScenarioError: a bundled file is invalid (a packaging bug).
    """
    return [_bundled(n) for n in bundled_names()]


def bundled_hash(name: str) -> str | None:
    """The :meth:`~world.config.WorldConfig.content_hash` of the bundled scenario ``name``
    (``"default"`` and ``""`` are ``standard``), or ``None`` when no bundled scenario has
    that name. A run of a config with another hash is a *modified* scenario, whatever its
    name says."""
    name = DEFAULT_SCENARIO if name in ("", "default") else name
    if name not in bundled_names():
        return None
    return load_scenario(name).config.content_hash()


def load_scenario(ref: str | os.PathLike[str] | None = None, *, seed: int | None = None) -> Scenario:
    """Resolve ``--scenario NAME|PATH`` (and ``--seed``) into a :class:`Scenario`.

    Args:
        ref: a bundled scenario's name, a path to a ``.toml`` file, or ``None`` for
            ``DEFAULT_SCENARIO``.
        seed: replaces the scenario's seed when given.

    Returns:
        The scenario.

    Raises:
        ScenarioError: unknown name (the message lists the bundled ones), missing or
            invalid file, or a bad seed.
    """
    if ref is None:
        ref = DEFAULT_SCENARIO
    text = os.fspath(ref)
    names = bundled_names()
    explicit_path = isinstance(ref, os.PathLike) or text.endswith(".toml") or "/" in text or os.sep in text
    if not explicit_path and text in names:
        scen = _bundled(text)
    elif explicit_path or Path(text).is_file():
        try:
            scen = read_scenario_file(text)
        except ScenarioError as exc:
            stem = Path(text).stem
            if exc.problems == ["no such scenario file"] and stem in names:
                raise ScenarioError(
                    text, f"no such scenario file (the bundled scenario {stem!r} is used without '.toml')"
                ) from None
            raise
    else:
        import difflib  # only for the hint of an error message

        close = difflib.get_close_matches(text, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ScenarioError(
            text, f"unknown scenario{hint}; bundled scenarios: {', '.join(names)}; or give the path of a .toml file"
        )
    return scen.with_seed(seed)


#: What follows a scenario's name when its rules are not those of the bundled scenario of
#: that name: ``standard (modified ad3657df)`` (:func:`modified_name`).
MODIFIED_MARK = " (modified "


def modified_name(name: str, config_hash: str) -> str:
    """``"NAME (modified HASH8)"``: a scenario called ``name`` whose config has the content
    hash ``config_hash`` (:meth:`~world.config.WorldConfig.content_hash`, 64 hex digits) but
    is not the bundled scenario of that name. The one form every command prints and records
    (``pibench run``'s table title, ``pibench agent``'s lines, headless reports and saves,
    ``pibench report``'s rows), so an edited copy of standard.toml is never shown as, nor
    paired with, ``standard``."""
    return f"{name}{MODIFIED_MARK}{config_hash[:8]})"


def scenario_title(name: str, config: WorldConfig) -> str:
    """The scenario as commands show it: ``name``, or :func:`modified_name` when ``name``
    is a bundled scenario's (``"default"`` and ``""`` are ``standard``'s) and ``config`` is
    not that scenario's config. A scenario of its own name (not bundled) keeps its name."""
    bundled = bundled_hash(name)
    digest = config.content_hash()
    return modified_name(name, digest) if bundled is not None and bundled != digest else name


def modified_scenario(name: str, config: dict[str, Any] | None) -> list[str]:
    """The world parameters in which ``config`` differs from the bundled scenario ``name``
    (empty when it is not a bundled scenario, or matches it). A save rebuilt with other rules
    but still named after a bundled scenario is a *modified scenario*, never "integrity ok"."""
    try:
        if name not in bundled_names() or not isinstance(config, dict):
            return []
        own = json.loads(json.dumps(load_scenario(name).config.to_dict()))
        config = json.loads(json.dumps(config))
    except Exception:  # noqa: BLE001 - a scenario file that changed or vanished: nothing to compare
        return []
    return sorted(k for k in set(own) | set(config) if own.get(k) != config.get(k))
