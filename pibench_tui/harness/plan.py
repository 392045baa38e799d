"""Evaluation plans: ``pibench agent --plan FILE.toml`` (models × scenarios × seeds).

A plan names the endpoints (where replies come from, with limits shared by every career
that uses one), the models (one label each: one configuration), the scenarios and the
seeds; every model plays every scenario on every seed. A single ``pibench agent --model M``
command is a one-entry plan (:func:`plan_from_args`), so both go through one path:
:func:`load_plan` or :func:`plan_from_args` → :func:`careers_of` → the runner.

The file (TOML; relative paths are relative to the plan file's folder)::

    out = "runs/plan1"             # the output folder (default "runs")
    seeds = "101-110"              # as --seeds: "101,105", "101-110", "@sealed.json", or [101, 102]
    scenarios = ["standard"]       # bundled names or .toml files (default ["standard"])
    jobs = 4                       # careers played at the same time (default 1)

    [endpoints.local]
    base_url = "http://127.0.0.1:8000/v1"
    api_key_env = "LOCAL_KEY"      # the variable's name: never the key itself
    max_concurrent = 4             # requests in flight at once, all careers together
    requests_per_minute = 60
    tokens_per_minute = 200000

    [defaults]                     # any [[models]] key but label: each model's unless it says its own
    endpoint = "local"
    max_turns = 8

    [[models]]
    label = "m1-t0"
    model = "m1"
    temperature = 0.0
    price = [2, 8, 0.5]            # USD per million prompt, completion[, cached prompt] tokens

Every key is checked before anything runs (:class:`PlanError` names the key, its line and
the valid values); unknown keys and two models of one label are errors. A model's own key
replaces its default, and with it the default it excludes (``no_temperature`` the default
``temperature``, ``max_tokens`` the default ``max_completion_tokens`` and back). A price
(here or ``--price``, which wins) makes each career's ``result.json`` record ``cost_usd``.
``pibench agent --plan`` keeps a copy of the plan file in the output folder
(``plan-<first 12 hex digits of its SHA-256>.toml``), its secrets redacted
(:mod:`pibench_tui.harness.plancopy`).
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pibench_tui.harness import defaults

__all__ = [
    "ENDPOINT_KEYS",
    "MODEL_KEYS",
    "PLAN_KEYS",
    "EndpointSpec",
    "ModelSpec",
    "Plan",
    "PlanError",
    "load_plan",
    "parse_plan",
    "with_prices",
]


class PlanError(ValueError):
    """A plan that cannot be run; the message names the file, the key (and its line when
    it can be found) and what is valid."""


#: Top-level keys: what each is (the message of an unknown key lists them).
PLAN_KEYS: dict[str, str] = {
    "out": "the output folder (default 'runs')",
    "seeds": "seeds as --seeds takes them ('101-110', '101,105', '@SEAL_FILE') or a list of integers",
    "scenarios": "a list of bundled scenario names or .toml files (default ['standard'])",
    "jobs": "careers played at the same time (default 1)",
    "endpoint_check": "check every model's endpoint with one tiny request first (default true)",
    "allow_incomplete_confinement": "play sealed seeds without complete OS confinement (default false)",
    "endpoints": "[endpoints.NAME] tables",
    "defaults": "a table of [[models]] keys (not label) every model takes unless it gives its own",
    "models": "[[models]] entries",
}

#: ``[endpoints.NAME]`` keys.
ENDPOINT_KEYS: dict[str, str] = {
    "base_url": "an OpenAI-compatible endpoint's URL (absent: OpenAI's)",
    "api_key_env": "the environment variable holding the key (default OPENAI_API_KEY)",
    "command": "instead of a URL: a command that reads the request as JSON on stdin and prints the reply",
    "command_user": "run the command as this user (as --command-user)",
    "headers": "a table of extra HTTP headers",
    "max_concurrent": "requests in flight at once, all careers of the plan together",
    "requests_per_minute": "requests started in any 60 s, all careers together",
    "tokens_per_minute": "prompt + completion tokens in any 60 s, all careers together",
    "retries": f"retries of a failed request (default {defaults.RETRIES})",
    "retry_base": f"first backoff in seconds, doubled per retry (default {defaults.RETRY_BASE:g})",
    "request_timeout": f"time-out of one request in seconds (default {defaults.REQUEST_TIMEOUT:g})",
}

#: ``[[models]]`` keys.
MODEL_KEYS: dict[str, str] = {
    "label": "the run label (required, unique): the folder under out and the report's row",
    "endpoint": "the name of an [endpoints.NAME] table (required)",
    "model": "the model name sent to the endpoint (required)",
    "temperature": f"sampling temperature, 0 to 2 (default {defaults.TEMPERATURE:g})",
    "no_temperature": "true: send no temperature (as --no-temperature)",
    "max_tokens": f"output tokens per reply (default {defaults.MAX_TOKENS})",
    "max_completion_tokens": "send the output limit as max_completion_tokens (replaces max_tokens)",
    "reasoning_effort": "sent as reasoning_effort (low, medium, high ...)",
    "extra_body": "a table merged into every request body",
    "headers": "a table of extra HTTP headers (over the endpoint's)",
    "max_turns": f"code turns per month (default {defaults.MAX_TURNS})",
    "memory": "false: memory writes are no-ops (as --no-memory; default true)",
    "block_timeout": f"wall-clock limit per code block in seconds (default {defaults.BLOCK_TIMEOUT:g})",
    "price": "[IN, OUT] or [IN, OUT, CACHED]: USD per million prompt, completion and cached prompt tokens "
    "(result.json's cost_usd; --price NAME=... wins)",
}

#: A model's own key that replaces a default of another key (``[defaults]``).
_EXCLUDES: dict[str, tuple[str, ...]] = {
    "no_temperature": ("temperature",),
    "temperature": ("no_temperature",),
    "max_tokens": ("max_completion_tokens",),
    "max_completion_tokens": ("max_tokens",),
}


@dataclass(frozen=True)
class EndpointSpec:
    """Where replies come from, and the limits every career using it shares.

    Attributes:
        name: The ``[endpoints.NAME]`` name.
        base_url: OpenAI-compatible URL (``None`` with ``command`` unset: OpenAI's).
        api_key_env: Environment variable with the key.
        command: A command backend instead of a URL.
        command_user: Run ``command`` as this user.
        headers: Extra HTTP headers (values never recorded).
        max_concurrent / requests_per_minute / tokens_per_minute: Shared limits (``None``: none).
        retries / retry_base / request_timeout: The retry policy (as the CLI options).
    """

    name: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    command: str | None = None
    command_user: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    max_concurrent: int | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    retries: int = defaults.RETRIES
    retry_base: float = defaults.RETRY_BASE
    request_timeout: float = defaults.REQUEST_TIMEOUT

    @property
    def limited(self) -> bool:
        """Whether any shared limit is set."""
        return any(v is not None for v in (self.max_concurrent, self.requests_per_minute, self.tokens_per_minute))


@dataclass(frozen=True)
class ModelSpec:
    """One configuration to evaluate (one label).

    Attributes mirror ``pibench agent``'s options (``memory=False`` is ``--no-memory``;
    ``max_completion_tokens`` replaces ``max_tokens`` when set).
    """

    label: str
    endpoint: str
    model: str
    temperature: float = defaults.TEMPERATURE
    no_temperature: bool = False
    max_tokens: int = defaults.MAX_TOKENS
    max_completion_tokens: int | None = None
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    max_turns: int = defaults.MAX_TURNS
    memory: bool = True
    block_timeout: float = defaults.BLOCK_TIMEOUT
    price: Any = None  # a pibench_tui.pricing.Price, or None


@dataclass(frozen=True)
class Plan:
    """A whole evaluation: every model plays every scenario on every seed.

    Attributes:
        out: The output folder.
        seeds: A :class:`~pibench_tui.cli.seeds.SeedSpec` (``None``: each scenario's own seed).
        scenarios: Scenario names or ``.toml`` paths (resolved), in order.
        endpoints: By name.
        models: In file order (labels unique).
        jobs: Careers at the same time.
        endpoint_check: Check each model's endpoint before any career.
        allow_incomplete_confinement: As the CLI flag.
        source: The plan file (``None``: built from command-line options).
        text: The plan file's text as its copy in ``out`` keeps it, whose SHA-256 each
            career records (:func:`~pibench_tui.harness.plancopy.kept_plan_text`: the file's
            own text, or its data with secrets redacted when it holds any); ``None``: built
            from command-line options.
    """

    out: str
    seeds: Any
    scenarios: list[str]
    endpoints: dict[str, EndpointSpec]
    models: list[ModelSpec]
    jobs: int = 1
    endpoint_check: bool = True
    allow_incomplete_confinement: bool = False
    source: str | None = None
    text: str | None = None


def load_plan(path: str | Path) -> Plan:
    """Read and check a plan file (see the module docstring).

    Raises:
        PlanError: The file is missing, not TOML, or any key is unknown, missing or of a
            bad value (the message names the key, its line and what is valid).
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_plan(text, source=str(path), base=p.resolve().parent)


def parse_plan(text: str, *, source: str = "<plan>", base: Path | None = None) -> Plan:
    """:func:`load_plan` of ``text`` (relative paths against ``base``, default the current folder).

    Raises:
        PlanError: See :func:`load_plan`.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: not valid TOML: {exc}") from None
    from dataclasses import replace

    from pibench_tui.harness.plancopy import kept_plan_text

    return replace(_Checker(text, source, base or Path.cwd()).plan(data), text=kept_plan_text(text, data))


# ---------------------------------------------------------------------------------- checking


class _Checker:
    """Turns a plan's parsed TOML into a :class:`Plan`, naming the first bad key."""

    def __init__(self, text: str, source: str, base: Path) -> None:
        self.lines = text.splitlines()
        self.source = source
        self.base = base

    # where a key is --------------------------------------------------------------------
    def _table_lines(self, where: tuple[str | int, ...]) -> tuple[int, int, bool]:
        """``(first, end, found)``: the 0-based line range of the table ``where`` is in (the
        top level runs to the first table header); ``found``: its header was found."""
        if len(where) >= 2 and where[0] == "models" and isinstance(where[1], int):
            head = r"\s*\[\[\s*models\s*\]\]"
            heads = [i for i, ln in enumerate(self.lines) if re.match(head, ln)][where[1] : where[1] + 1]
        elif where and where[0] == "defaults":
            heads = [i for i, ln in enumerate(self.lines) if re.match(r"\s*\[\s*defaults\s*\]", ln)][:1]
        elif len(where) >= 2 and where[0] == "endpoints":
            head = r"\s*\[\s*endpoints\s*\.\s*[\"']?" + re.escape(str(where[1])) + r"[\"']?\s*\]"
            heads = [i for i, ln in enumerate(self.lines) if re.match(head, ln)][:1]
        else:
            heads = []
        start = heads[0] if heads else -1
        nxt = [i for i in range(start + 1, len(self.lines)) if re.match(r"\s*\[", self.lines[i])]
        return start + 1 if heads else 0, nxt[0] if nxt else len(self.lines), bool(heads)

    def _line(self, where: tuple[str | int, ...]) -> int | None:
        """The 1-based line of the key at ``where`` (``("models", 1, "temperature")``), or
        of its table's header when the key is not found (a heuristic over the text: TOML
        keeps no positions); ``None`` when neither is found."""
        first, end, found = self._table_lines(where)
        key = (
            where[-1]
            if where and isinstance(where[-1], str) and (len(where) == 1 or len(where) > 2 or where[0] == "defaults")
            else None
        )
        if key is not None:
            pat = re.compile(r"\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
            for i in range(first, end):
                if pat.match(self.lines[i]):
                    return i + 1
        return first if found else None

    def fail(self, where: tuple[str | int, ...], message: str) -> PlanError:
        """A :class:`PlanError` for the key at ``where``."""
        name = ""
        for part in where:
            name += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if name else str(part))
        line = self._line(where)
        at = f" (line {line})" if line is not None else ""
        return PlanError(f"{self.source}: {name}{at}: {message}")

    def unknown(self, table: dict[str, Any], valid: dict[str, str], where: tuple[str | int, ...]) -> None:
        for key in table:
            if key in valid:
                continue
            if key == "api_key":
                raise self.fail(
                    (*where, key),
                    "the key itself never goes in a plan: put it in an environment variable and name that "
                    "variable with api_key_env",
                )
            close = difflib.get_close_matches(key, list(valid), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise self.fail((*where, key), f"unknown key; {hint}valid keys: {', '.join(valid)}")

    # values -------------------------------------------------------------------------------
    def string(self, value: Any, where: tuple[str | int, ...], what: str = "a non-empty string") -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"must be {what}, got {value!r}")
        from pibench_tui.textsafe import clean

        return clean(value)

    def integer(self, value: Any, where: tuple[str | int, ...], lo: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise self.fail(where, f"must be an integer of at least {lo}, got {value!r}")
        return value

    def number(self, value: Any, where: tuple[str | int, ...], lo: float, hi: float) -> float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or not lo <= value <= hi:
            raise self.fail(where, f"must be a number from {lo:g} to {hi:g}, got {value!r}")
        return float(value)

    def boolean(self, value: Any, where: tuple[str | int, ...]) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false, got {value!r}")
        return value

    def table(self, value: Any, where: tuple[str | int, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a table ({{key = value, ...}}), got {value!r}")
        return value

    def headers(self, value: Any, where: tuple[str | int, ...]) -> dict[str, str]:
        from pibench_tui.harness.backends import duplicate_header

        out = {}
        for k, v in self.table(value, where).items():
            if not isinstance(v, str) or any(c in k for c in " \t\r\n:") or any(c in v for c in "\r\n"):
                raise self.fail((*where, k), "a header is NAME = \"VALUE\" (no spaces or ':' in the name, one line)")
            out[k] = v.strip()
        again = duplicate_header(list(out))
        if again is not None:
            raise self.fail((*where, again), "a header named twice (names are case-insensitive): give it once")
        return out

    def path(self, text: str) -> str:
        """``text`` as a path against the plan's folder (kept as is when absolute)."""
        return str(self.base / Path(text).expanduser())

    # the plan --------------------------------------------------------------------------------
    def plan(self, data: dict[str, Any]) -> Plan:
        self.unknown(data, PLAN_KEYS, ())
        out = self.path(self.string(data.get("out", "runs"), ("out",)))
        jobs = self.integer(data.get("jobs", 1), ("jobs",), 1)
        check = self.boolean(data.get("endpoint_check", True), ("endpoint_check",))
        allow = self.boolean(data.get("allow_incomplete_confinement", False), ("allow_incomplete_confinement",))
        scenarios = self.scenarios(data.get("scenarios", ["standard"]))
        seeds = self.seeds(data.get("seeds"))
        raw_eps = self.table(data.get("endpoints", {}), ("endpoints",))
        if not raw_eps:
            raise self.fail(("endpoints",), "a plan needs at least one [endpoints.NAME] table")
        endpoints = {name: self.endpoint(name, ep) for name, ep in raw_eps.items()}
        base = self.defaults(data.get("defaults", {}), endpoints)
        raw_models = data.get("models")
        if not isinstance(raw_models, list) or not raw_models:
            raise self.fail(("models",), "a plan needs at least one [[models]] entry (label, endpoint, model)")
        models: list[ModelSpec] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(raw_models):
            m = self.model(i, entry, endpoints, base)
            from pibench_tui.harness.rundir import safe_name

            folder = safe_name(m.label).lower()  # one folder per label, even on a case-insensitive disk
            if folder in seen:
                raise self.fail(
                    ("models", i, "label"),
                    f"label {m.label!r} is already the label of models[{seen[folder] + 1}]: one label is one "
                    "configuration; give each model entry its own label",
                )
            seen[folder] = i
            models.append(m)
        used = {m.endpoint for m in models}
        for name in endpoints:
            if name not in used:
                raise self.fail(("endpoints", name), "no model uses this endpoint (a typo in a model's endpoint?)")
        return Plan(
            out=out,
            seeds=seeds,
            scenarios=scenarios,
            endpoints=endpoints,
            models=models,
            jobs=jobs,
            endpoint_check=check,
            allow_incomplete_confinement=allow,
            source=self.source,
        )

    def scenarios(self, value: Any) -> list[str]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            raise self.fail(("scenarios",), f"must be a list of scenario names or .toml files, got {value!r}")
        from scenarios import ScenarioError, bundled_names, load_scenario

        out: list[str] = []
        for i, item in enumerate(items):
            name = self.string(item, ("scenarios",), "a scenario name or .toml file")
            ref = name if name in bundled_names() and "/" not in name else self.path(name)
            try:
                load_scenario(ref)
            except ScenarioError as exc:
                raise self.fail(("scenarios",), f"entry {i + 1}: {exc}") from None
            if ref in out:
                raise self.fail(("scenarios",), f"{name!r} is listed twice")
            out.append(ref)
        return out

    def seeds(self, value: Any) -> Any:
        if value is None:
            return None
        from pibench_tui.cli.seeds import parse_seeds

        if isinstance(value, list):
            if not value or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise self.fail(("seeds",), f"a list of seeds must hold integers, got {value!r}")
            value = ",".join(str(v) for v in value)
        elif isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        text = self.string(value, ("seeds",), "a string ('101-110', '101,105', '@SEAL_FILE') or a list of integers")
        if text.startswith("@"):
            text = "@" + self.path(text[1:])
        try:
            return parse_seeds(text, unique=True)
        except ValueError as exc:
            raise self.fail(("seeds",), str(exc)) from None

    def value(self, kind: tuple[Any, ...], value: Any, where: tuple[str | int, ...]) -> Any:
        """``value`` checked by ``kind``: ``("str",)``, ``("int", lo)``, ``("num", lo, hi)``,
        ``("bool",)``, ``("table",)`` or ``("headers",)``."""
        if kind[0] == "str":
            return self.string(value, where)
        if kind[0] == "int":
            return self.integer(value, where, kind[1])
        if kind[0] == "num":
            return self.number(value, where, kind[1], kind[2])
        if kind[0] == "bool":
            return self.boolean(value, where)
        if kind[0] == "headers":
            return self.headers(value, where)
        return self.table(value, where)

    def endpoint(self, name: str, value: Any) -> EndpointSpec:
        where: tuple[str | int, ...] = ("endpoints", name)
        ep = self.table(value, where)
        self.unknown(ep, ENDPOINT_KEYS, where)
        kw = {key: self.value(_ENDPOINT_KINDS[key], v, (*where, key)) for key, v in ep.items() if key != "command_user"}
        if "base_url" in kw and not re.match(r"https?://", kw["base_url"]):
            raise self.fail((*where, "base_url"), f"must be an http:// or https:// URL, got {kw['base_url']!r}")
        if "api_key_env" in kw and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", kw["api_key_env"]):
            raise self.fail(
                (*where, "api_key_env"),
                "must be the NAME of an environment variable holding the key (letters, digits, _), never the key itself",
            )
        if "command" in kw and "base_url" in kw:
            raise self.fail((*where, "command"), "command and base_url are two different backends; give one")
        if "command_user" in ep:
            if "command" not in ep:
                raise self.fail((*where, "command_user"), "applies to a command endpoint only")
            cu = ep["command_user"]
            is_id = isinstance(cu, int) and not isinstance(cu, bool)
            kw["command_user"] = str(cu) if is_id else self.string(cu, (*where, "command_user"), "a user name or id")
        return EndpointSpec(name=name, **kw)

    def price(self, value: Any, where: tuple[str | int, ...]) -> Any:
        """``[IN, OUT]`` or ``[IN, OUT, CACHED]`` (USD per million tokens) as a ``Price``."""
        from pibench_tui.pricing import MAX_PRICE, Price, price_problem

        ok = isinstance(value, list) and len(value) in (2, 3)
        ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        problem = price_problem([float(v) for v in value]) if ok else None
        if not ok or problem is not None:
            raise self.fail(
                where,
                "must be [IN, OUT] or [IN, OUT, CACHED]: USD per million prompt, completion and cached prompt "
                f"tokens, finite numbers from 0 to {MAX_PRICE:,.0f}, the cached one at most IN (e.g. [2, 8, 0.5]), "
                f"got {value!r}" + (f" ({problem})" if problem else ""),
            )
        return Price(float(value[0]), float(value[1]), float(value[2]) if len(value) == 3 else None)

    def checked(self, m: dict[str, Any], where: tuple[str | int, ...]) -> dict[str, Any]:
        """The values of ``m`` (model keys) checked, ``where`` naming their table."""
        return {
            key: self.price(v, (*where, key)) if key == "price" else self.value(_MODEL_KINDS[key], v, (*where, key))
            for key, v in m.items()
        }

    def defaults(self, value: Any, endpoints: dict[str, EndpointSpec]) -> dict[str, Any]:
        """The ``[defaults]`` table checked: model keys but ``label``."""
        where: tuple[str | int, ...] = ("defaults",)
        table = self.table(value, where)
        if "label" in table:
            raise self.fail((*where, "label"), "a label is one configuration: each [[models]] entry gives its own")
        self.unknown(table, {k: v for k, v in MODEL_KEYS.items() if k != "label"}, where)
        kw = self.checked(table, where)
        if "endpoint" in kw and kw["endpoint"] not in endpoints:
            raise self.fail(
                (*where, "endpoint"), f"no endpoint {kw['endpoint']!r}; the plan's endpoints: {', '.join(endpoints)}"
            )
        for key, others in _EXCLUDES.items():
            if key in kw and kw[key] is not False and any(o in kw and kw[o] is not False for o in others):
                raise self.fail((*where, key), f"give one of {key} and {', '.join(others)}")
        return kw

    def model(
        self, i: int, value: Any, endpoints: dict[str, EndpointSpec], base: dict[str, Any] | None = None
    ) -> ModelSpec:
        where: tuple[str | int, ...] = ("models", i)
        m = self.table(value, where)
        self.unknown(m, MODEL_KEYS, where)
        own = self.checked(m, where)
        inherited = dict(base or {})
        for key in own:
            for other in _EXCLUDES.get(key, ()) if own[key] is not False else ():
                inherited.pop(other, None)
        kw = {**inherited, **own}
        for key in ("label", "endpoint", "model"):
            if key not in kw:
                raise self.fail(where, f"missing {key!r} ({MODEL_KEYS[key]})")
        if kw["endpoint"] not in endpoints:
            raise self.fail(
                (*where, "endpoint"), f"no endpoint {kw['endpoint']!r}; the plan's endpoints: {', '.join(endpoints)}"
            )
        if "temperature" in kw and kw.get("no_temperature"):
            raise self.fail((*where, "temperature"), "no temperature is sent with no_temperature = true")
        if "max_tokens" in kw and "max_completion_tokens" in kw:
            raise self.fail((*where, "max_tokens"), "give one of max_tokens and max_completion_tokens")
        if "max_completion_tokens" in kw:
            kw["max_tokens"] = kw["max_completion_tokens"]
        refusal = defaults.extra_body_refusal(kw.get("extra_body", {}))
        if refusal is not None:
            raise self.fail((*where, "extra_body"), refusal.replace("--", "").replace("-", "_"))
        return ModelSpec(**kw)


#: How each ``[endpoints.NAME]`` key is checked (:meth:`_Checker.value`; ``command_user`` apart).
_ENDPOINT_KINDS: dict[str, tuple[Any, ...]] = {
    "base_url": ("str",),
    "api_key_env": ("str",),
    "command": ("str",),
    "headers": ("headers",),
    "max_concurrent": ("int", 1),
    "requests_per_minute": ("int", 1),
    "tokens_per_minute": ("int", 1),
    "retries": ("int", 0),
    "retry_base": ("num", 0.0, 600.0),
    "request_timeout": ("num", 0.1, 3600.0),
}

#: How each ``[[models]]`` key is checked (:meth:`_Checker.value`).
_MODEL_KINDS: dict[str, tuple[Any, ...]] = {
    "label": ("str",),
    "endpoint": ("str",),
    "model": ("str",),
    "temperature": ("num", 0.0, 2.0),
    "no_temperature": ("bool",),
    "max_tokens": ("int", 1),
    "max_completion_tokens": ("int", 1),
    "reasoning_effort": ("str",),
    "extra_body": ("table",),
    "headers": ("headers",),
    "max_turns": ("int", 1),
    "memory": ("bool",),
    "block_timeout": ("num", 0.1, 3600.0),
}


def setting_in_bounds(key: str, value: Any) -> bool:
    """Whether ``value`` is one a ``[[models]]`` setting ``key`` may take (the checks a plan
    gets, :data:`_MODEL_KINDS`: an int of at least its lower bound and below 2**63, a finite
    number within its range): ``pibench report`` shows a recorded harness setting only when it
    is (an edited ``max_turns`` of ``"lots"`` or 10**400, a NaN temperature, is shown as
    unknown)."""
    kind = _MODEL_KINDS.get(key)
    if kind is None or isinstance(value, bool):
        return False
    if kind[0] == "int":
        return isinstance(value, int) and kind[1] <= value < 2**63
    if kind[0] == "num":
        if not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
            return False
        return bool(kind[1] <= value <= kind[2])
    return False


# ------------------------------------------------------------------------------ the CLI form


def _command_line_headers(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """``--header NAME:VALUE`` pairs as a table; a name given twice (in any case) is refused."""
    from pibench_tui.harness.backends import duplicate_header

    again = duplicate_header([name for name, _value in pairs])
    if again is not None:
        raise PlanError(f"--header {again} is given twice (header names are case-insensitive): give it once")
    return dict(pairs)


def plan_from_args(args: Any) -> Plan:
    """The one-entry plan of ``pibench agent --model M ...`` (options not given take their
    defaults: the argparse defaults are ``None`` so that ``--plan`` can tell what was given).

    Raises:
        PlanError: ``--model`` is missing.
    """

    def given(name: str, default: Any) -> Any:
        value = getattr(args, name, None)
        return default if value is None else value

    from pibench_tui.textsafe import clean

    if not args.model:
        raise PlanError("--model NAME is required (or --plan FILE.toml)")
    if args.no_temperature and getattr(args, "temperature", None) is not None:
        raise PlanError(
            "--temperature and --no-temperature exclude each other: no temperature is sent with --no-temperature"
        )
    if args.max_completion_tokens is not None and getattr(args, "max_tokens", None) is not None:
        raise PlanError(
            "give one of --max-tokens and --max-completion-tokens (the same limit, sent as max_tokens or "
            "max_completion_tokens)"
        )
    if args.reasoning_effort is not None and not args.reasoning_effort.strip():
        raise PlanError(
            f"--reasoning-effort must be a non-empty level (e.g. low, medium, high), got {args.reasoning_effort!r}"
        )
    # names from the command line enter run directories and requests: bytes that are not
    # UTF-8 (surrogate escapes in argv) become U+FFFD, never a UnicodeEncodeError mid-career
    name = clean(args.model)
    memory = not args.no_memory
    label = clean(args.label) if args.label else name + ("" if memory else "-no-memory")
    endpoint = EndpointSpec(
        name="command" if args.backend_command is not None else "endpoint",
        base_url=args.base_url,
        api_key_env=given("api_key_env", "OPENAI_API_KEY"),
        command=args.backend_command,
        command_user=args.command_user,
        retries=given("retries", defaults.RETRIES),
        retry_base=given("retry_base", defaults.RETRY_BASE),
        request_timeout=given("request_timeout", defaults.REQUEST_TIMEOUT),
    )
    mct = args.max_completion_tokens
    model = ModelSpec(
        label=label,
        endpoint=endpoint.name,
        model=name,
        temperature=given("temperature", defaults.TEMPERATURE),
        no_temperature=bool(args.no_temperature),
        max_tokens=mct if mct is not None else given("max_tokens", defaults.MAX_TOKENS),
        max_completion_tokens=mct,
        reasoning_effort=args.reasoning_effort,
        extra_body=dict(args.extra_body or {}),
        headers=_command_line_headers(args.header or []),
        max_turns=given("max_turns", defaults.MAX_TURNS),
        memory=memory,
        block_timeout=given("block_timeout", defaults.BLOCK_TIMEOUT),
    )
    return Plan(
        out=given("out", "runs"),
        seeds=args.seeds,
        scenarios=[args.scenario] if args.scenario is not None else ["standard"],
        endpoints={endpoint.name: endpoint},
        models=[model],
        jobs=given("jobs", 1),
        endpoint_check=not args.no_endpoint_check,
        allow_incomplete_confinement=bool(args.allow_incomplete_confinement),
    )


#: ``pibench agent`` options that configure careers: with ``--plan`` the file says them.
CONFIG_OPTIONS: dict[str, str] = {
    "model": "--model",
    "base_url": "--base-url",
    "api_key_env": "--api-key-env",
    "backend_command": "--command",
    "command_user": "--command-user",
    "scenario": "--scenario",
    "seeds": "--seeds",
    "out": "--out",
    "label": "--label",
    "jobs": "--jobs",
    "max_turns": "--max-turns",
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-completion-tokens",
    "no_temperature": "--no-temperature",
    "reasoning_effort": "--reasoning-effort",
    "extra_body": "--extra-body",
    "header": "--header",
    "no_memory": "--no-memory",
    "block_timeout": "--block-timeout",
    "retries": "--retries",
    "retry_base": "--retry-base",
    "request_timeout": "--request-timeout",
}


def conflicting_options(args: Any) -> list[str]:
    """The configuration options given beside ``--plan`` (each is a key of the file)."""

    def given(value: Any) -> bool:  # 0 and 0.0 are given values (0.0 == False)
        return value is not None and value is not False and value != []

    return [flag for name, flag in CONFIG_OPTIONS.items() if given(getattr(args, name, None))]


def plan_from_command(args: Any) -> Plan:
    """The plan a ``pibench agent`` command describes: ``--plan FILE`` read and checked
    (with ``--no-endpoint-check`` / ``--allow-incomplete-confinement`` applied), or the
    one-entry plan of its options.

    Raises:
        PlanError: A bad plan file, options that conflict with ``--plan``, or no ``--model``.
    """
    if getattr(args, "plan", None) is None:
        return with_prices(plan_from_args(args), getattr(args, "price", None))
    clash = conflicting_options(args)
    if clash:
        raise PlanError(
            f"{', '.join(clash)} cannot be given with --plan: the plan file says how every career is played "
            "(put it in the file); beside --plan only --redo-failed, --no-endpoint-check, "
            "--allow-incomplete-confinement, --trust-local-endpoint and --price are taken"
        )
    plan = load_plan(args.plan)
    from dataclasses import replace

    return with_prices(
        replace(
            plan,
            endpoint_check=plan.endpoint_check and not args.no_endpoint_check,
            allow_incomplete_confinement=plan.allow_incomplete_confinement or bool(args.allow_incomplete_confinement),
        ),
        getattr(args, "price", None),
    )


def with_prices(plan: Plan, prices: Any) -> Plan:
    """``plan`` with ``--price NAME=...`` applied: ``prices`` (``[(name, Price), ...]``) sets
    the price of every model whose label or model name is ``name`` (over the plan file's).

    Raises:
        PlanError: A ``--price`` names neither a label nor a model of the plan.
    """
    from dataclasses import replace

    given = dict(prices or [])
    names = {m.label for m in plan.models} | {m.model for m in plan.models}
    unknown = sorted(set(given) - names)
    if unknown:
        raise PlanError(
            f"--price {unknown[0]}=...: no label or model of this run is named {unknown[0]!r}; "
            f"the labels: {', '.join(m.label for m in plan.models)}; the models: "
            f"{', '.join(sorted({m.model for m in plan.models}))}"
        )
    models = [replace(m, price=given.get(m.label) or given.get(m.model) or m.price) for m in plan.models]
    return replace(plan, models=models)
