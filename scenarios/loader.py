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
``min``/``max`` (``WorldConfig`` field metadata), and finally whatever
``WorldConfig.validate()`` refuses.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from world.config import WorldConfig

DEFAULT_SCENARIO = "standard"
"""The scenario used when none is named."""

DEFAULT_SEED = 1001
"""Seed of a scenario file that gives none; also the ``standard`` scenario's seed.

``standard`` is the world to practise and develop on, so it uses a tuning seed (1001, as
MECHANICS §17 tunes the baseline on 1001-1002) and keeps the evaluation seeds 101-103 of
``eval-101`` .. ``eval-103`` held out.
"""

SEED_MAX = 2**63 - 1
"""Largest accepted seed."""

SHORTCUTS = ("months", "start_budget", "frozen_field", "no_scooping", "unlimited_attention")
"""``WorldConfig`` fields that may also be set at a scenario file's top level."""

TOP_KEYS = ("name", "description", "seed", *SHORTCUTS, "world")
"""Every key a scenario file may have at its top level."""

BUNDLED_ORDER = (
    "standard", "tutorial", "eval-101", "eval-102", "eval-103",
    "short-12", "mid-30", "frozen-field", "unlimited-attention", "no-scooping",
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
    """

    name: str
    description: str
    seed: int
    config: WorldConfig
    source: str = "bundled"
    overrides: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def with_seed(self, seed: int | None) -> Scenario:
        """This scenario with another seed (``None`` keeps it).

        Raises:
            ScenarioError: the seed is not an integer in ``0..SEED_MAX``.
        """
        if seed is None:
            return self
        problem = _check_seed(seed)
        if problem:
            raise ScenarioError(self.name, f"--seed: {problem}")
        return dataclasses.replace(self, seed=int(seed))

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "seed", "config"}`` as plain JSON-able data."""
        return {"name": self.name, "description": self.description, "seed": self.seed,
                "config": self.config.to_dict()}

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
def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unknown(path: str, key: str, valid: list[str], what: str) -> str:
    import difflib  # only for the hint of an error message (start-up stays light)

    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{path}: unknown {what}{hint}; valid {what}s: {', '.join(valid)}"


def _check(path: str, value: Any, default: Any, meta: Mapping[str, Any], problems: list[str]) -> Any:
    """Type-check ``value`` against the default's type; return it coerced (or None on error)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            problems.append(f"{path}: must be true or false, got {_kind(value)} {_show(value)}")
            return None
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{path}: must be an integer, got {_kind(value)} {_show(value)}")
            return None
        return _range(path, value, meta, problems)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{path}: must be a number, got {_kind(value)} {_show(value)}")
            return None
        if not math.isfinite(value):
            problems.append(f"{path}: must be a finite number, got {_show(value)}")
            return None
        return _range(path, float(value), meta, problems)
    if isinstance(default, str):
        if not isinstance(value, str):
            problems.append(f"{path}: must be text, got {_kind(value)} {_show(value)}")
            return None
        return value
    if isinstance(default, list):
        if not isinstance(value, list):
            problems.append(f"{path}: must be an array, got {_kind(value)} {_show(value)}")
            return None
        model = default[0] if default else 0
        return [_check(f"{path}[{i}]", v, model, {}, problems) for i, v in enumerate(value)]
    if isinstance(default, dict):
        if not isinstance(value, dict):
            problems.append(f"{path}: must be a table, got {_kind(value)} {_show(value)}")
            return None
        out = {}
        valid = [str(k) for k in default]
        for k, v in value.items():
            if k not in default:
                problems.append(_unknown(f"{path}.{k}", k, valid, "key"))
                continue
            out[k] = _check(f"{path}.{k}", v, default[k], {}, problems)
        return out
    problems.append(f"{path}: cannot be set from a scenario file")
    return None


def _range(path: str, value: float, meta: Mapping[str, Any], problems: list[str]) -> Any:
    lo, hi = meta.get("min"), meta.get("max")
    unit = f" {meta['unit']}" if meta.get("unit") else ""
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f"between {lo:g} and {hi:g}" if lo is not None and hi is not None else (
            f"at least {lo:g}" if lo is not None else f"at most {hi:g}")
        problems.append(f"{path}: {_show(value)} is out of range; it must be {bounds}{unit}")
        return None
    return value


def _check_seed(seed: Any) -> str | None:
    if isinstance(seed, bool) or not isinstance(seed, int):
        return f"must be an integer, got {_kind(seed)} {_show(seed)}"
    if not 0 <= seed <= SEED_MAX:
        return f"{seed} is out of range; it must be between 0 and {SEED_MAX}"
    return None


# -- parsing -------------------------------------------------------------------------------
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
    problems: list[str] = []
    fields = {f.name: f for f in dataclasses.fields(WorldConfig)}
    defaults = WorldConfig()
    shortcuts = [k for k in SHORTCUTS if k in fields]
    top_valid = [k for k in TOP_KEYS if k not in SHORTCUTS or k in fields]

    for key in data:
        if key not in top_valid:
            problems.append(_unknown(key, key, top_valid, "key"))

    name = data.get("name")
    if name is None:
        problems.append("name: missing; every scenario needs a name")
    elif not isinstance(name, str) or not name.strip():
        problems.append(f"name: must be non-empty text, got {_kind(name)} {_show(name)}")
    elif len(name) > 80 or any(ord(c) < 32 for c in name):
        problems.append("name: must be at most 80 characters, without control characters")
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.append(f"description: must be text, got {_kind(description)} {_show(description)}")
    seed = data.get("seed", DEFAULT_SEED)
    seed_problem = _check_seed(seed)
    if seed_problem:
        problems.append(f"seed: {seed_problem}")

    overrides: dict[str, Any] = {}
    for key in shortcuts:
        if key in data:
            overrides[key] = _check(key, data[key], _model(defaults, fields[key]), fields[key].metadata, problems)

    world = data.get("world", {})
    if not isinstance(world, dict):
        problems.append(f"world: must be a table ([world]), got {_kind(world)} {_show(world)}")
        world = {}
    valid_params = sorted(fields)
    for key, value in world.items():
        path = f"world.{key}"
        if key not in fields:
            problems.append(_unknown(path, key, valid_params, "parameter"))
            continue
        if key in overrides or (key in shortcuts and key in data):
            problems.append(f"{path}: set twice, at the top level and in [world]; keep one")
            continue
        overrides[key] = _check(path, value, _model(defaults, fields[key]), fields[key].metadata, problems)

    if problems:
        raise ScenarioError(source, problems)

    try:
        config = WorldConfig.from_dict(overrides)  # tables merge into the defaults
        config.validate()
    except ValueError as exc:
        raise ScenarioError(source, str(exc)) from None
    return Scenario(name=name, description=description.strip(), seed=int(seed), config=config,
                    source=source, overrides=overrides)


def _model(defaults: WorldConfig, f: dataclasses.Field) -> Any:
    """The value whose type a setting must have: the default, as a float if declared one."""
    default = getattr(defaults, f.name)
    if f.type in ("float", float) and isinstance(default, int) and not isinstance(default, bool):
        return float(default)
    return default


def _merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


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


def read_scenario_file(path: str | os.PathLike[str], *, source: str | None = None) -> Scenario:
    """Read a scenario file.

    Args:
        path: the ``.toml`` file.
        source: the label used in messages and :attr:`Scenario.source` (default: the path).

    Raises:
        ScenarioError: the file is missing, unreadable, not UTF-8, not TOML, or invalid.
    """
    p = Path(path)
    label = source or str(p)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(label, "no such scenario file") from None
    except OSError as exc:
        raise ScenarioError(label, f"cannot read the file ({exc.strerror})") from None
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
                raise ScenarioError(text, f"no such scenario file (the bundled scenario {stem!r} is used without '.toml')") from None
            raise
    else:
        import difflib  # only for the hint of an error message

        close = difflib.get_close_matches(text, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ScenarioError(
            text, f"unknown scenario{hint}; bundled scenarios: {', '.join(names)}; "
            "or give the path of a .toml file")
    return scen.with_seed(seed)
