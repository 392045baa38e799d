"""``pibench agent`` and ``pibench replay``: parsers and commands (imported only when run)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pibench_tui.cli.argtypes import check_budget, non_negative_int, positive_int
from pibench_tui.pricing import format_usd
from pibench_tui.textsafe import visible
from pibench_tui.words import count

from . import defaults
from .backends import redact_url

__all__ = [
    "EXIT_FAILED",
    "EXIT_LLM_FAILED_PARTWAY",
    "EXIT_OK",
    "EXIT_USAGE",
    "add_agent_parser",
    "add_replay_parser",
    "cmd_agent",
    "cmd_replay",
]

#: ``pibench agent`` exit status: every career played to its end, every LLM call answered.
EXIT_OK = 0
#: A career could not be played or did not finish (its run directory keeps the last
#: completed month: the same command resumes it), a run directory of other settings, the
#: LLM never answered in a career, a bad key, or Ctrl-C.
EXIT_FAILED = 1
#: A usage error (argparse's own status).
EXIT_USAGE = 2
#: Every career was played to its end, but in some the LLM endpoint failed partway: calls
#: failed for good after their retries, and those months advanced without the model
#: (MECHANICS §16). The careers are recorded; the command names each one and why.
EXIT_LLM_FAILED_PARTWAY = 3

_AGENT_EPILOG = """\
The §16 contract: every month a fresh conversation (system prompt + month
message with your notes, last month's report and the dashboard); at most
--max-turns replies; the first ```python block of a reply runs in the same
sandbox as `pibench headless`; time.next_month() ends the month (after the
last turn it ends anyway).

Each career writes OUT/LABEL/SCENARIO-SEED/ (transcript.jsonl, result.json,
actions.jsonl, months.jsonl, integrity.json, eval.json). A killed run resumes
at the last completed month when the same command is run again; a finished
career (its result.json) is kept and never played again.

--plan FILE.toml plays models x scenarios x seeds (docs/agent.md, "Evaluation
plans"):
  out = "runs/plan1"    seeds = "101-110" (or "@sealed.json")
  scenarios = ["standard"]    jobs = 8    endpoint_check = true
  [endpoints.NAME]  base_url | command, api_key_env (the variable's name,
                    never the key), max_concurrent, requests_per_minute,
                    tokens_per_minute (shared by every career using it),
                    retries, retry_base, request_timeout, headers,
                    command_user
  [[models]]        label (unique), endpoint, model, temperature |
                    no_temperature, max_tokens | max_completion_tokens,
                    reasoning_effort, extra_body, headers, max_turns,
                    memory, block_timeout
Relative paths are relative to the plan file; the whole file is checked first
(unknown keys and two models of one label are errors); run it again to
resume; `pibench report OUT` has a row per label. Beside --plan only
--redo-failed, --no-endpoint-check, --allow-incomplete-confinement and
--price are taken.

exit status:
  0  every career played to its end, every LLM call answered (after retries)
  1  a career could not be played or did not finish (the same command
     resumes it at its last completed month), the LLM never answered in a
     career, a run directory of other settings, a bad key, or Ctrl-C
  2  a usage error (a bad option, an unknown, missing or invalid --scenario,
     or a bad --plan file: the key and its line are named)
  3  every career played to its end, but in some the LLM endpoint failed
     partway: calls failed after their retries and those months advanced
     without the model (§16); the careers are recorded and listed on stderr
     with the errors (move a run directory away and run the same command
     again to play that career again)

examples:
  pibench agent --model qwen2.5-coder --base-url http://localhost:11434/v1 \\
      --seeds 101-103
  pibench agent --model gpt-4.1 --seeds 101-103 --jobs 3  # key: $OPENAI_API_KEY
  pibench agent --model scripted --command 'python my_agent.py' \\
      --scenario short-12
  pibench agent --plan plan.toml                      # resumes when run again
"""


_positive_int = positive_int
_non_negative_int = non_negative_int


def _float_in(lo: float, hi: float, what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (lo <= v <= hi):
            raise argparse.ArgumentTypeError(f"{what} must be between {lo:g} and {hi:g}, got {text!r}")
        return v

    return parse


def _seeds(text: str) -> Any:
    from pibench_tui.cli.seeds import parse_seeds

    try:
        return parse_seeds(text, unique=True)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _json_object(text: str) -> dict[str, Any]:
    import json

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object ({{...}}), got {type(value).__name__}")
    from pibench_tui.harness.defaults import extra_body_refusal

    refusal = extra_body_refusal(value)
    if refusal is not None:
        raise argparse.ArgumentTypeError(refusal)
    return value


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c in name for c in " \t\r\n") or any(c in value for c in "\r\n"):
        raise argparse.ArgumentTypeError(f"a header is NAME:VALUE (no spaces in the name, one line), got {text!r}")
    return name.strip(), value.strip()


def _price_arg(text: str) -> tuple[str, Any]:
    from pibench_tui.pricing import parse_price

    try:
        return parse_price(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_agent_parser(sub: Any) -> None:
    """Register ``agent`` on the ``pibench`` subparsers."""
    p = sub.add_parser(
        "agent",
        help="an LLM plays careers (OpenAI-compatible endpoint or a local command)",
        description="Let an LLM play careers under the harness contract of MECHANICS §16.",
        epilog=_AGENT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--plan",
        metavar="FILE.toml",
        help="play an evaluation plan: models x scenarios x seeds with shared per-endpoint limits "
        "(see below); the file then says everything --model ... --request-timeout would",
    )
    p.add_argument(
        "--model",
        metavar="NAME",
        help="model name sent to the endpoint (and shown in reports); required without --plan",
    )
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (default: OpenAI's)")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable with the API key (default OPENAI_API_KEY)",
    )
    p.add_argument(
        "--command",
        dest="backend_command",
        metavar="CMD",
        help="instead of an endpoint: a command that reads the request as JSON on stdin and prints the reply",
    )
    p.add_argument(
        "--command-user",
        metavar="USER",
        help="run the --command backend as this user (no supplementary groups, a minimal environment; pibench "
        "must run as root; not root, not nobody: the agent processes' user). Required with sealed seeds: the "
        "backend must not be able to read the seal file or the run folders",
    )
    p.add_argument("--scenario", metavar="NAME|PATH", help="a bundled scenario or a .toml file (default: standard)")
    p.add_argument(
        "--seeds",
        type=_seeds,
        metavar="LIST|RANGE",
        help="seeds as 101,102 or 101-103, or @FILE: sealed seeds from `pibench seal` "
        "(run directories named by commitment prefix; refused unless the OS confines the agent "
        "completely) (default: the scenario's seed)",
    )
    p.add_argument(
        "--allow-incomplete-confinement",
        action="store_true",
        help="play sealed seeds even when the agent process cannot prove complete OS confinement "
        "(each run's result.json still records what it proved)",
    )
    p.add_argument(
        "--trust-local-endpoint",
        action="store_true",
        help="play sealed seeds against a --base-url served on this machine by a user who can read the seal "
        "file (refused otherwise: that server could read the seeds)",
    )
    p.add_argument("--out", metavar="DIR", help="output folder (default ./runs)")
    p.add_argument(
        "--label", metavar="L", help="run label, the folder under --out (default: the model name, plus -no-memory)"
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="careers played at the same time (default 1)",
    )
    p.add_argument(
        "--max-turns",
        type=_positive_int,
        metavar="N",
        help=f"code turns per month (default {defaults.MAX_TURNS})",
    )
    p.add_argument(
        "--temperature",
        type=_float_in(0.0, 2.0, "--temperature"),
        metavar="T",
        help=f"sampling temperature (default {defaults.TEMPERATURE})",
    )
    p.add_argument(
        "--max-tokens",
        type=_positive_int,
        metavar="N",
        help=f"output tokens per reply (default {defaults.MAX_TOKENS})",
    )
    p.add_argument(
        "--max-completion-tokens",
        type=_positive_int,
        metavar="N",
        help="send the output-token limit as max_completion_tokens=N instead of max_tokens (reasoning models); "
        "replaces --max-tokens",
    )
    p.add_argument("--no-temperature", action="store_true", help="send no temperature (models that refuse one)")
    p.add_argument("--reasoning-effort", metavar="LEVEL", help="send reasoning_effort=LEVEL (e.g. low, medium, high)")
    p.add_argument(
        "--extra-body",
        type=_json_object,
        metavar="JSON",
        help="a JSON object merged into every request body (a provider's own fields), e.g. '{\"top_p\": 0.9}'; "
        "the values of fields named like a secret (api_key, access_token, client_secret, password, authorization) "
        "are never recorded; fields the harness sends itself (temperature, max_tokens, ...) are refused",
    )
    p.add_argument(
        "--header",
        action="append",
        type=_header,
        metavar="K:V",
        help="an extra HTTP header of every request (repeatable; names case-insensitive). Part of the settings: "
        "its name, and its value unless the header may hold a secret (a name like Authorization or *-Key, a "
        "bearer or opaque token value), which is recorded as <redacted>",
    )
    p.add_argument(
        "--no-endpoint-check",
        action="store_true",
        help="skip the one tiny request that checks the endpoint answers before any career starts",
    )
    p.add_argument(
        "--redo-failed",
        action="store_true",
        help="play again, from month 1 as new careers, the finished careers in which the LLM never answered "
        "(their result.json and transcript.jsonl are kept beside as abandoned-N.result.json and "
        "abandoned-N.transcript.jsonl and their tokens are counted as abandoned)",
    )
    p.add_argument(
        "--price",
        type=_price_arg,
        action="append",
        default=[],
        metavar="MODEL=IN,OUT[,CACHED]",
        help="USD per million prompt, completion and (optional) cached prompt tokens of MODEL (or the label), "
        "for the cost per career in the summary; repeatable",
    )
    p.add_argument("--no-memory", action="store_true", help="memory writes are no-ops (the harness ablation)")
    p.add_argument(
        "--block-timeout",
        type=_float_in(0.1, defaults.MAX_BLOCK_TIMEOUT, "--block-timeout"),
        metavar="S",
        help=f"wall-clock limit per code block in seconds (default {defaults.BLOCK_TIMEOUT:g})",
    )
    p.add_argument(
        "--retries",
        type=_non_negative_int,
        metavar="N",
        help=f"retries of a failed LLM call (default {defaults.RETRIES})",
    )
    p.add_argument(
        "--retry-base",
        type=_float_in(0.0, 600.0, "--retry-base"),
        metavar="S",
        help=f"first backoff in seconds, doubled per retry (default {defaults.RETRY_BASE:g})",
    )
    p.add_argument(
        "--request-timeout",
        type=_float_in(0.1, 3600.0, "--request-timeout"),
        metavar="S",
        help=f"time-out of one LLM request in seconds (default {defaults.REQUEST_TIMEOUT:g})",
    )
    p.set_defaults(func=cmd_agent)


def add_replay_parser(sub: Any) -> None:
    """Register ``replay`` on the ``pibench`` subparsers."""
    p = sub.add_parser(
        "replay",
        help="re-simulate run directories and confirm their Impact and state digest",
        description="Re-simulate each run's action log; confirm result.json's Impact and digest; "
        "mark the result valid or invalid. Exit status 1 if any is invalid, else 2 if a sealed run "
        "could not be checked (no --seal FILE; nothing is recorded for it) or a transcript check ran out of "
        "its --check-budget, else 0 (2 too, before any replay, for a RUN_DIR or --seal FILE that is not there).",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories (or folders holding them)")
    p.add_argument(
        "--seal",
        metavar="FILE",
        help="the seal file of `pibench seal`: reveals the seeds of sealed runs "
        "(matched by commitment) once the evaluation is over",
    )
    p.add_argument(
        "--check-transcripts",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="re-run each agent run's recorded code blocks in a fresh agent process against the replayed world "
        "and require exactly the logged calls and the recorded block results and integrity incidents (the action "
        "log must come from the transcript; agent code must be deterministic); the first divergence is named. "
        "On by default; --no-check-transcripts skips it (faster; the verdict then says the transcript was not "
        "checked)",
    )
    p.add_argument(
        "--check-budget",
        type=check_budget,
        default=defaults.CHECK_BUDGET,
        metavar="SECONDS",
        help="wall-clock budget of each run's transcript check (default %(default)g s): blocks are re-run until it "
        "is spent; a check it cuts short is reported 'unchecked' with 'log unchecked (budget exhausted after N of "
        "M blocks)', never valid, and the exit status is then 2",
    )
    p.set_defaults(func=cmd_replay)


def cmd_agent(args: argparse.Namespace) -> int:
    """Run ``pibench agent``; the exit status is :data:`EXIT_OK`, :data:`EXIT_FAILED`,
    :data:`EXIT_USAGE` or :data:`EXIT_LLM_FAILED_PARTWAY` (see the epilog).

    One path for a plan and for a single label (a one-entry plan): read and check it
    (:func:`_agent_plan`), check what a sealed evaluation and command backends need
    (:func:`_agent_checks`), build the careers (:func:`_agent_careers`), set aside
    ``--redo-failed`` careers and check the endpoints (:func:`_agent_endpoints`), play them
    (:func:`_agent_play`) and summarise (:func:`_summarise`)."""
    plan = _agent_plan(args)
    if isinstance(plan, int):
        return plan
    users = _agent_checks(plan, trust_local=bool(args.trust_local_endpoint))
    if isinstance(users, int):
        return users
    careers = _agent_careers(plan, users)
    if isinstance(careers, int):
        return careers
    refused = _agent_endpoints(plan, careers, redo_failed=bool(args.redo_failed))
    if refused is not None:
        return refused
    _keep_plan(plan, careers)
    results = _agent_play(plan, careers)
    if isinstance(results, int):
        return results
    prices = {m.label: m.price for m in plan.models if m.price is not None}
    return _summarise(careers, results, check=_check_advice(plan), prices=prices)


def _keep_plan(plan: Any, careers: list[Any]) -> None:
    """A copy of the plan file in the output folder, ``plan-<first 12 hex digits of its
    SHA-256>.toml`` (the same plan run again writes nothing new); nothing for a command
    without ``--plan``. A plan some of whose careers will be refused, their run directories
    holding runs of other settings (an entry changed after it ran:
    :func:`~pibench_tui.harness.loop.settings_conflict`), leaves no copy: a copy says the
    runs beside it were played under that plan (the rest of it is played as usual)."""
    if plan.text is None:
        return
    import hashlib
    from pathlib import Path

    from pibench_tui.harness.loop import settings_conflict
    from pibench_tui.harness.rundir import atomic_write_text

    refused = [c for c in careers if settings_conflict(c.settings, c.path)]
    if refused:
        print(
            visible(
                f"pibench agent: {plan.source}: {count(len(refused), 'career')} of this plan "
                f"({', '.join(sorted({c.settings.label for c in refused}))}) will be refused: "
                + ("its run directory holds a run" if len(refused) == 1 else "their run directories hold runs")
                + f" of other settings; no copy of the plan is kept in {plan.out} (give a changed entry a new label)",
                newlines=True,
            ),
            file=sys.stderr,
        )
        return

    data = plan.text.encode("utf-8")
    path = Path(plan.out) / f"plan-{hashlib.sha256(data).hexdigest()[:12]}.toml"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, plan.text)


def _agent_plan(args: argparse.Namespace) -> Any:
    """Step 1: the :class:`~pibench_tui.harness.plan.Plan` of the command (``--plan FILE`` or
    the one-entry plan of the options), or the exit status of a usage error."""
    from pibench_tui.harness.plan import PlanError, plan_from_command

    if args.plan is None:
        if args.backend_command is not None and args.base_url is not None:
            return _usage("--command and --base-url are two different backends; give one")
        if args.command_user is not None and args.backend_command is None:
            return _usage("--command-user applies to a --command backend only")
    try:
        plan = plan_from_command(args)
    except PlanError as exc:
        return _usage(str(exc))
    for model in plan.models:
        problem = _label_problem(model.label)
        if problem is not None:
            return _usage(problem)
    if args.plan is None:
        from scenarios import ScenarioError, load_scenario

        try:
            load_scenario(plan.scenarios[0])
        except ScenarioError as exc:
            return _usage(str(exc))
    return plan


def _usage(message: str) -> int:
    print(visible(f"pibench agent: error: {message}", newlines=True), file=sys.stderr)
    return EXIT_USAGE


def _agent_checks(plan: Any, trust_local: bool = False) -> dict[str, tuple[int, int] | None] | int:
    """Step 2: what a sealed evaluation requires (the OS confinement; command backends as
    another user that can read neither the seal nor the run folders; an endpoint on this
    machine served by a user who cannot read the seal, unless ``trust_local``:
    ``--trust-local-endpoint``), and each command endpoint's user: ``{endpoint name: (uid,
    gid) or None}``, or the exit status of a refusal."""
    spec = plan.seeds
    sealed = spec is not None and spec.sealed
    allow = plan.allow_incomplete_confinement
    if sealed:
        from pibench_tui.cli.seeds import require_confinement

        refusal = require_confinement(allow_incomplete=allow)
        if refusal is not None:
            print(f"pibench agent: a sealed evaluation is refused: {refusal}", file=sys.stderr)
            return EXIT_FAILED
    users: dict[str, tuple[int, int] | None] = {}
    for name, ep in plan.endpoints.items():
        if sealed:
            refused = _sealed_endpoint(plan, name, ep, spec.source[1:], trust_local)
            if refused is not None:
                return refused
        users[name] = None
        if ep.command_user is not None or (sealed and ep.command is not None):
            checked = _command_user(ep.command_user, spec.source[1:] if sealed else None, plan.out)
            if isinstance(checked, str):
                print(
                    f"pibench agent: {'a sealed evaluation is refused: ' if sealed else ''}{checked}", file=sys.stderr
                )
                return EXIT_FAILED
            users[name] = checked
    proved = _prove_confinement(sealed and not allow)
    if isinstance(proved, str):
        print(f"pibench agent: {proved}", file=sys.stderr)
        return EXIT_FAILED
    print(f"pibench agent: {proved.describe()}", file=sys.stderr)
    return users


def _sealed_endpoint(plan: Any, name: str, ep: Any, seal: str, trust_local: bool) -> int | None:
    """A sealed run's checks of endpoint ``name``: a ``--base-url`` on this machine served by a
    user who may read the ``seal`` file is refused (unless ``trust_local``), any on this
    machine is said on stderr; then the proxy its requests go through (:func:`_sealed_proxy`;
    a command endpoint has none). ``None``, or the exit status of the refusal."""
    if ep.base_url is not None and _on_this_machine(ep.base_url):
        problem = _local_endpoint_problem(ep.base_url, seal)
        if problem is not None and not trust_local:
            print(f"pibench agent: a sealed evaluation is refused: {problem}", file=sys.stderr)
            return EXIT_FAILED
        print(
            f"pibench agent: note: {_where(plan, name, '--base-url')} {visible(redact_url(ep.base_url))} is served on this "
            "machine; a sealed evaluation trusts its server not to read the seal file or --out. "
            f"{LOCAL_ENDPOINT_LIMIT} (docs/agent.md, 'Sealed evaluations')",
            file=sys.stderr,
        )
    if ep.command is None:
        return _sealed_proxy(plan, name, ep.base_url, seal, trust_local)
    return None


def _sealed_proxy(plan: Any, name: str, base_url: str | None, seal: str, trust_local: bool) -> int | None:
    """A sealed run's check of the proxy its requests to ``base_url`` go through (the
    environment's, :func:`~pibench_tui.harness.backends.environment_proxy`; the client is
    given exactly that one): a proxy served on this machine by a user who may read the seal
    file is refused like such a ``--base-url`` (unless ``trust_local``); any proxy is said on
    stderr. ``None``, or the exit status of the refusal."""
    from pibench_tui.harness.backends import OPENAI_URL, environment_proxy

    url = base_url or OPENAI_URL
    proxy = environment_proxy(url)
    if proxy is None:
        return None
    var, proxy_url = proxy
    where = f"{_where(plan, name, '--base-url')} {visible(redact_url(url))}"
    if not _on_this_machine(proxy_url):
        print(
            f"pibench agent: note: requests to {where} go through the proxy {var}={visible(redact_url(proxy_url))}",
            file=sys.stderr,
        )
        return None
    problem = _local_endpoint_problem(proxy_url, seal, what=f"the proxy {var}")
    if problem is not None and not trust_local:
        print(
            f"pibench agent: a sealed evaluation is refused: requests to {where} go through a proxy on this "
            f"machine: {problem} (or unset {var}, or name the host in NO_PROXY)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    print(
        f"pibench agent: note: requests to {where} go through the proxy {var}={visible(redact_url(proxy_url))}, served on "
        "this machine; a sealed evaluation trusts it not to read the seal file or --out (docs/agent.md)",
        file=sys.stderr,
    )
    return None


def _where(plan: Any, endpoint: str, option: str) -> str:
    """How to name an endpoint's setting: the option (a single command) or the plan's table."""
    return option if plan.source is None else f"[endpoints.{endpoint}]"


def _agent_careers(plan: Any, users: dict[str, tuple[int, int] | None]) -> list[Any] | int:
    """Step 3: every career of the plan (backends built once up front, so a missing key,
    package or command fails before anything runs), or the exit status of that failure."""
    from pibench_tui.harness.planrun import careers_of, limiters_of

    limiters = limiters_of(plan)
    careers = careers_of(plan, limiters, users)
    for c in careers:
        blocker = _file_in_the_way(Path(c.path))
        if blocker is not None:
            option = "out" if plan.source is not None else "--out"
            return _usage(
                f"{option} {plan.out}: {blocker} is a file, not a folder; the run directory of seed {c.seed} "
                f"({c.path}) must be a folder (created if missing): give another {option} or move the file away"
            )
    seen: set[str] = set()
    for c in careers:
        if c.model.label in seen:
            continue
        seen.add(c.model.label)
        try:
            c.make_backend()
        except ValueError as exc:
            who = f"label {c.model.label!r}: " if plan.source is not None else ""
            print(visible(f"pibench agent: {who}{exc}", newlines=True), file=sys.stderr)
            return EXIT_FAILED
    if plan.source is not None:
        n_seeds = len({(c.seed, c.commitment) for c in careers})
        print(
            visible(
                f"pibench agent: plan {plan.source}: {count(len(careers), 'career')} ({count(len(plan.models), 'label')} x "
                f"{count(len(plan.scenarios), 'scenario')} x {count(n_seeds, 'seed')}), {plan.jobs} at a time, "
                f"into {plan.out}",
                newlines=True,
            ),
            file=sys.stderr,
        )
        for name, lim in limiters.items():
            print(visible(f"pibench agent: endpoint {name}: {lim.describe()} (shared)", newlines=True), file=sys.stderr)
    return careers


def _file_in_the_way(path: Path) -> Path | None:
    """The first of ``path`` and its ancestors that exists and is not a folder (a career's run
    directory cannot be made there), or ``None``."""
    for p in (path, *path.parents):
        if p.exists() or p.is_symlink():
            return None if p.is_dir() else p
    return None


def _check_advice(plan: Any) -> Callable[[Any], str]:
    """What to check when a career's LLM never answered (its backend's settings)."""

    def advice(c: Any) -> str:
        if plan.source is not None:
            what = "command" if c.endpoint.command is not None else "base_url, api_key_env"
            return f"check [endpoints.{c.endpoint.name}] ({what}) and the model {c.model.model!r} of {plan.source}"
        if c.endpoint.command is not None:
            return "check the --command program (it must print a reply and exit 0)"
        return "check --base-url, --model and the key"

    return advice


def _agent_endpoints(plan: Any, careers: list[Any], *, redo_failed: bool) -> int | None:
    """Step 4: ``--redo-failed`` sets aside the finished careers whose LLM never answered;
    then each model with a career to play is checked by one tiny request (unless the plan
    or ``--no-endpoint-check`` skips it). ``None``, or the exit status of a failed check."""
    if redo_failed:
        from pibench_tui.harness.loop import set_aside_failed

        for c in careers:
            moved = set_aside_failed(c.settings, c.seed, plan.out, commitment=c.commitment)
            if moved is not None:
                print(
                    visible(
                        f"pibench agent: {_career_name(plan, c)}: the LLM never answered; playing it again "
                        f"(the old result kept as {moved})",
                        newlines=True,
                    ),
                    file=sys.stderr,
                )
    if not plan.endpoint_check:
        return None
    advice = _check_advice(plan)
    checked: set[str] = set()
    for c in careers:
        if c.model.label in checked or (c.path / "result.json").is_file():
            continue
        checked.add(c.model.label)
        refusal = endpoint_check(c.make_backend())
        if refusal is not None:
            who = f" of label {c.model.label!r}" if plan.source is not None else ""
            print(
                visible(
                    f"pibench agent: the endpoint check{who} failed, no career was started: {refusal}; {advice(c)} "
                    "(or --no-endpoint-check to skip this check)",
                    newlines=True,
                ),
                file=sys.stderr,
            )
            return EXIT_FAILED
    return None


def _career_name(plan: Any, c: Any) -> str:
    """``seed 101`` (a single command) or ``m1-t0 standard seed 101`` (a plan)."""
    return f"seed {c.name}" if plan.source is None else f"{c.settings.label} {c.settings.shown_scenario} seed {c.name}"


def _agent_play(plan: Any, careers: list[Any]) -> list[Any] | int:
    """Step 5: play the careers under one progress display; the results in career order,
    or :data:`EXIT_FAILED` when interrupted (the same command resumes)."""
    from pibench_tui.harness.loop import CareerInterrupted
    from pibench_tui.harness.planrun import PlanDisplay, run_planned

    try:
        with PlanDisplay(careers) as display:
            return run_planned(careers, jobs=plan.jobs, display=display)
    except (KeyboardInterrupt, CareerInterrupted):
        print(
            "pibench agent: interrupted; run the same command again to resume at the last completed month",
            file=sys.stderr,
        )
        return EXIT_FAILED


#: The conversation of the endpoint check: one short message (a few tokens each way).
ENDPOINT_CHECK = [{"role": "user", "content": "Reply with the single word OK."}]


def endpoint_check(backend: Any) -> str | None:
    """Send :data:`ENDPOINT_CHECK` once through ``backend`` (its retries included); ``None``
    when it answered, else what went wrong (``"kind: message"``)."""
    from pibench_tui.harness.backends import LLMCallFailed

    try:
        backend.complete(ENDPOINT_CHECK)
    except LLMCallFailed as exc:
        return f"{exc.kind}: {exc.message[:300]}"
    return None


#: Why a sealed evaluation refuses a ``--command`` backend run as pibench's own user.
SEALED_COMMAND_REFUSAL = (
    "a --command backend runs as your own user, so it could read the seal file (its path is on "
    "pibench's command line) and the run folders (their checkpoints hold the world's hidden state); "
    "run it as another user with --command-user USER (pibench as root), or use an endpoint "
    "(--base-url) served where neither can be read (docs/agent.md, 'Sealed evaluations')"
)


#: Bytes of one path component on Linux and macOS file systems (NAME_MAX): the label names
#: the run's first folder (:func:`~pibench_tui.harness.rundir.safe_name`).
MAX_LABEL_FOLDER_BYTES = 255


def _label_problem(label: str) -> str | None:
    """Why ``label`` cannot name a run, or ``None``: it names the run's folder and its row in
    ``pibench report``, and must not read as a reference policy's name (``baseline``, a
    Cyrillic ``bаseline``, ``Baseline``, one with an escape or zero-width character inside),
    which a reader would take for the policy's row. Other labels, escapes included, are
    kept as given and shown safely (control characters as visible escapes). Its folder name
    holds at most :data:`MAX_LABEL_FOLDER_BYTES` bytes (before, a longer one ended in a
    traceback, "File name too long", once a career started)."""
    from pibench_tui.harness.rundir import safe_name
    from pibench_tui.textsafe import reads_as
    from world.policies import ALL_NAMES

    folder = len(safe_name(label).encode("utf-8"))
    if folder > MAX_LABEL_FOLDER_BYTES:
        return (
            f"the label {visible(label[:40])}... ({count(len(label), 'character')}) names a folder of "
            f"{folder:,} bytes; a folder name holds at most {MAX_LABEL_FOLDER_BYTES} bytes (characters other "
            "than letters, digits and . _ + - take 3 bytes each): give a shorter --label (it defaults to --model)"
        )
    name = reads_as(label, ALL_NAMES)
    if name is not None:
        return (
            f"the label {visible(label)!r} reads as the reference policy {name!r} in reports; "
            "choose a label that names your model or setup (--label)"
        )
    return None


def _listener_uid(url: str) -> int | None:
    """The user id owning the TCP socket listening on ``url``'s port on this machine
    (``/proc/net/tcp`` and ``tcp6``), or ``None`` when it cannot be told (not Linux, no such
    listener in this network namespace: a server in a container of its own)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        port = parts.port or {"https": 443, "socks5": 1080, "socks5h": 1080}.get(parts.scheme, 80)
    except ValueError:
        return None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 7 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                return int(fields[7])
    return None


def _may_read(uid: int, path: str) -> bool:
    """Whether the user ``uid`` may read the file ``path`` by its permission bits (root
    always; the folders on the way are not looked at, so this may say yes too often)."""
    import grp
    import os
    import pwd

    if uid == 0:
        return True
    st = os.stat(path)
    if st.st_uid == uid:
        return bool(st.st_mode & 0o400)
    try:
        user = pwd.getpwuid(uid)
        groups = {user.pw_gid} | {g.gr_gid for g in grp.getgrall() if user.pw_name in g.gr_mem}
    except KeyError:
        groups = set()
    if st.st_gid in groups:
        return bool(st.st_mode & 0o040)
    return bool(st.st_mode & 0o004)


#: What the local-endpoint check of a sealed run proves, and what it cannot (said in its note).
LOCAL_ENDPOINT_LIMIT = (
    "The check sees only the user of the socket listening on that port, not who answers "
    "behind it: a relay run as a user who cannot read the seal, in front of a server that can, "
    "passes. For a sealed evaluation use a remote endpoint, or run the model server itself as "
    "a user with no access to the seal file or --out"
)


def _local_endpoint_problem(url: str, seal: str, what: str = "the server behind --base-url") -> str | None:
    """Why a sealed evaluation may not trust the server behind ``url`` (served on this
    machine), or ``None``: the user its listening socket belongs to may read the seal file
    ``seal``. ``None`` also when that user cannot be told (the note on stderr still says
    what the seal trusts)."""
    from pibench_tui.textsafe import visible

    uid = _listener_uid(url)
    if uid is None:
        return None
    try:
        readable = _may_read(uid, seal)
    except OSError:
        return None
    if not readable:
        return None
    return (
        f"{what} {visible(redact_url(url))} listens as uid {uid}, which may read the seal file "
        f"{visible(seal)}; serve it as a user that cannot (docs/agent.md, 'Sealed evaluations'), "
        "or give --trust-local-endpoint"
    )


def _on_this_machine(url: str) -> bool:
    """Whether ``url``'s host is this machine, however it is spelled: a loopback or local
    name, or any address it resolves to that is loopback, unspecified or one of this
    machine's own (an address a socket here can bind). ``127.1``, ``0x7f000001``,
    ``2130706433``, ``[::ffff:127.0.0.1]`` and the host's own IP are this machine; its server
    could read this machine's files as its own user."""
    import socket
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host in ("localhost", socket.gethostname().lower()) or host.endswith(".localhost"):
        return True
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return any(_local_address(str(info[4][0])) for info in infos)


def _local_address(address: str) -> bool:
    """Whether the numeric ``address`` (IPv4 or IPv6, maybe IPv4-mapped) is this machine's."""
    import ipaddress
    import socket

    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:
        return True
    family = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(ip), 0))  # only an address of this machine can be bound
        except OSError:
            return False
    return True


def _command_user(user: str | None, seal: str | None, out: str) -> tuple[int, int] | str:
    """``(uid, gid)`` of ``--command-user USER``, or why it cannot run the backend.

    With ``seal`` (a sealed evaluation; the seal file's path) the backend must not be able
    to read it nor enter ``out`` (created owner-only when missing): a process of that user
    tries both (``cat`` the seal, ``cd`` into ``out``) before any career, and either working
    is the refusal, naming the path. ``user`` ``None`` in a sealed evaluation is refused
    (:data:`SEALED_COMMAND_REFUSAL`); so are root and the agent processes' user
    (:data:`pibench_tui.sandbox.confine.NOBODY`), sealed or not: a backend of that user could
    kill or trace any session's agent process."""
    import os
    import pwd
    import subprocess
    from pathlib import Path

    if user is None:
        return SEALED_COMMAND_REFUSAL
    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, OverflowError):
        return f"--command-user {user!r}: no such user"
    from pibench_tui.sandbox.confine import NOBODY

    if entry.pw_uid == NOBODY:
        return (
            f"--command-user {user!r} is uid {NOBODY} ({entry.pw_name}), the user pibench's agent processes run as "
            "(started as root): a backend of that user could signal them, this session's and every other's on this "
            "machine; run the backend as a user of its own (docs/agent.md, 'Sealed evaluations')"
        )
    if os.geteuid() != 0:
        return "--command-user needs pibench to run as root (it starts the backend as that user)"
    if entry.pw_uid == 0:
        return f"--command-user {user!r} is root: the backend would read everything pibench can"
    if seal is None:
        return entry.pw_uid, entry.pw_gid
    try:
        Path(out).mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        return f"--out {out}: {exc.strerror or exc}"
    probe = subprocess.run(
        ["/bin/sh", "-c", 'cat -- "$1" >/dev/null 2>&1 && echo seal; cd -- "$2" 2>/dev/null && echo out', "sh"]
        + [os.path.abspath(seal), os.path.abspath(out)],
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    reached = probe.stdout.split()
    if "seal" in reached:
        return f"--command-user {entry.pw_name} can read the seal file {seal}: make it readable by its owner only"
    if "out" in reached:
        return f"--command-user {entry.pw_name} can enter --out {out}: make it accessible to its owner only (chmod 700)"
    return entry.pw_uid, entry.pw_gid


def _prove_confinement(required: bool) -> Any:
    """What an agent process proves of its OS confinement here (a throw-away one, before any
    career: each career's own processes prove it again), or why none could start; with
    ``required`` (a sealed evaluation) an incomplete proof is that reason (the message names
    what is missing and ``--allow-incomplete-confinement``)."""
    from pibench_tui.sandbox import Sandbox, SandboxStartError

    try:
        with Sandbox(lambda *call: None, {}, require_complete=required) as sandbox:
            return sandbox.confinement
    except SandboxStartError as exc:
        return str(exc)


def _months_text(months: list[int]) -> str:
    """``"month 4"``, ``"months 4-11"`` or ``"months 2, 5, 9"`` (sorted, unique)."""
    ms = sorted(set(months))
    if not ms:
        return "unknown months"
    if len(ms) == 1:
        return f"month {ms[0]}"
    if ms == list(range(ms[0], ms[-1] + 1)):
        return f"months {ms[0]}-{ms[-1]}"
    return "months " + ", ".join(str(m) for m in ms)


def _career_tokens(res: dict[str, Any]) -> tuple[int, int, int | None, int, int]:
    """``(prompt, completion, cached prompt or None, abandoned prompt, abandoned completion)``
    of a finished career's result.json."""
    tok = res.get("tokens") or {}
    raw = tok.get("abandoned")
    ab: dict[str, Any] = raw if isinstance(raw, dict) else {}
    cached = tok.get("cached_prompt")
    return (
        int(tok.get("prompt") or 0),
        int(tok.get("completion") or 0),
        int(cached) if isinstance(cached, int) else None,
        int(ab.get("prompt") or 0),
        int(ab.get("completion") or 0),
    )


def _abandoned_requests(finished: list[tuple[str, dict[str, Any]]]) -> dict[str, tuple[int, int]]:
    """Per kind of :data:`~pibench_tui.harness.loop.ABANDONED_REQUESTS` (``timed_out``:
    abandoned at a time-out; ``in_flight``: in flight at a kill), the requests and their
    estimated prompt tokens, summed over the careers' result.json
    (``tokens.abandoned.<kind>``; what is not a whole number ≥ 0 counts 0)."""
    from pibench_tui.harness.loop import ABANDONED_REQUESTS, count_field

    out = dict.fromkeys(ABANDONED_REQUESTS, (0, 0))
    for _name, res in finished:
        ab = (res.get("tokens") or {}).get("abandoned")
        for key in ABANDONED_REQUESTS:
            part = ab.get(key) if isinstance(ab, dict) else None
            if isinstance(part, dict):
                n, est = out[key]
                out[key] = (n + count_field(part.get("requests")), est + count_field(part.get("prompt_estimated")))
    return out


def career_cost(res: dict[str, Any], price: Any) -> float:
    """USD of a finished career at ``price`` (:func:`pibench_tui.pricing.career_cost`)."""
    from pibench_tui.pricing import career_cost as cost

    return cost(res, price)


#: The per-seed table's state of a career whose LLM never answered (its Impact shown as ``—``:
#: the auto-advanced world's 0.0 is no figure of the model; QA7 F3 saw "0.0 horizon").
NO_ANSWER = "no answer"


def _summary_rows(
    names: list[str], results: list[Any], width: int, price: Any, who: str = ""
) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
    """The per-seed table on stdout and each career's error on stderr (``who``: the label and
    scenario before "seed N" in a plan of several); returns the number of careers that raised
    and the finished ones."""
    from pibench_tui.harness.loop import RunConflict, known_text, never_answered, usage_known

    failed = 0
    finished: list[tuple[str, dict[str, Any]]] = []
    cost_head = f" {'$':>9}" if price is not None else ""
    print(
        f"{'seed':>{width}}  {'Impact':>9}  {'state':<10} {'tokens':>10} {'abandoned':>9}{cost_head} {'calls':>6} "
        f"{'failed':>6} {'flags':>5}"
    )
    for name, res in zip(names, results, strict=True):
        if isinstance(res, Exception):
            failed += 1
            print(visible(f"{name:>{width}}  error: {res}", newlines=True))
            how = (
                "its run directory holds another run: it was not touched"
                if isinstance(res, RunConflict)
                else "not finished: its run directory keeps the last completed month; run the same command "
                "again to resume it"
            )
            print(
                visible(f"pibench agent: {who}seed {name}: {type(res).__name__}: {res} ({how})", newlines=True),
                file=sys.stderr,
            )
            continue
        finished.append((name, res))
        state = f"collapse {res['collapse_month']}" if res["collapsed"] else "horizon"
        impact = f"{res['impact']['total']:>9.1f}"
        if never_answered(res):  # the world's auto-advance, no evidence of the model: no Impact of its
            impact, state = f"{'—':>9}", NO_ANSWER
        llm = res["llm"]
        _p, _c, _cached, ab_p, ab_c = _career_tokens(res)
        known = usage_known(res)
        cost = f" {known_text(format_usd(career_cost(res, price)), known):>9}" if price is not None else ""
        tokens = known_text(f"{res['tokens']['total']:,}", known)
        print(
            f"{name:>{width}}  {impact}  {state:<10} {tokens:>10} "
            f"{ab_p + ab_c:>9,}{cost} {llm['calls']:>6} {llm['failed_calls']:>6} {res['integrity']['flags']:>5}"
        )
    return failed, finished


def _summary_cost(finished: list[tuple[str, dict[str, Any]]], price: Any, model: str) -> None:
    """One line: tokens per career (cached and abandoned apart) and, with a price, USD per career."""
    from pibench_tui.harness.loop import calls_without_usage, known_text, usage_known

    if not finished:
        return
    n = len(finished)
    counts = [_career_tokens(res) for _name, res in finished]
    per = sum(p + c for p, c, _cached, _ap, _ac in counts) / n
    cached_known = [cached for _p, _c, cached, _ap, _ac in counts if cached is not None]
    abandoned = sum(ap + ac for _p, _c, _cached, ap, ac in counts) / n
    knowns = {usage_known(res) for _name, res in finished}
    known = "none" if knowns == {"none"} else "all" if knowns == {"all"} else "partial"
    without = sum(calls_without_usage(res) for _name, res in finished)
    parts = [f"tokens per career {known_text(f'{per:,.0f}', known)}"]
    if without:
        parts.append(f"{count(without, 'answered LLM call')} returned no token count (no usage from the provider)")
    if cached_known:
        parts.append(f"cached prompt {sum(cached_known) / len(cached_known):,.0f}")
    parts.append(f"abandoned {abandoned:,.0f} (not in the tokens; interrupted turns, careers redone)")
    from pibench_tui.harness.loop import ABANDONED_REQUESTS

    abandoned_requests = _abandoned_requests(finished)
    for key, (requests, estimated_prompt) in abandoned_requests.items():
        if requests:  # no usage comes back for them: said apart, never hidden behind "abandoned 0"
            parts.append(
                f"requests {ABANDONED_REQUESTS[key]} {requests / n:,.1f} per career "
                f"(~{estimated_prompt / n:,.0f} prompt tokens ESTIMATED, no usage came back; not in the tokens)"
            )
    if price is not None:
        from pibench_tui.pricing import timed_out_cost

        usd = sum(career_cost(res, price) for _name, res in finished) / n
        estimated = sum(timed_out_cost(res, price) for _name, res in finished) / n
        cached_note = "" if price.cached is None else f", cached {price.cached:g}"
        parts.insert(
            0,
            f"cost per career {known_text(format_usd(usd), known)} at ${price.prompt:g} in, ${price.completion:g} out"
            f"{cached_note} per Mtok"
            + (
                f" ({format_usd(estimated)} of it estimated: prompts of requests "
                + " or ".join(ABANDONED_REQUESTS[k] for k, (r, e) in abandoned_requests.items() if r or e)
                + ")"
                if estimated
                else ""
            ),
        )
    else:
        parts.append(f"cost: give --price {model}=IN,OUT[,CACHED]")
    print(f"over {count(n, 'finished career')}: " + "; ".join(parts))


def _summary_never_answered(finished: list[tuple[str, dict[str, Any]]], check: str, who: str = "") -> int:
    """Say loudly on stderr which careers' LLM never answered; returns how many."""
    failed = 0
    for name, res in finished:
        llm = res["llm"]
        if llm["calls"] and llm["failed_calls"] >= llm["calls"]:
            # not one reply: a wrong --base-url, --model or key, or a dead server; the career
            # is recorded (the §16 contract) and would not be played again, so say so loudly
            failed += 1
            why = (llm.get("errors") or [{}])[-1]
            print(
                visible(
                    f"pibench agent: {who}seed {name}: the LLM never answered ({count(llm['failed_calls'], 'failed call')}; last: "
                    f"{why.get('kind', '?')}: {why.get('message', '?')}); {check}; "
                    "the career was auto-advanced and recorded: run the same command with --redo-failed to play "
                    "it again (or delete its run directory)",
                    newlines=True,
                ),
                file=sys.stderr,
            )
    return failed


def _summary_degraded(degraded: list[tuple[str, dict[str, Any], Any]], total: int) -> None:
    """On stderr: the careers in which some LLM calls failed for good (``(who, result, run
    directory)`` each), and what that did."""
    from pibench_tui.harness.loop import MAX_FAILED_CALLS

    print(
        f"pibench agent: in {len(degraded)} of {count(total, 'career')} the LLM endpoint failed partway; "
        "those months advanced without the model (MECHANICS §16: a call that fails after its retries "
        f"ends the month, and after {count(MAX_FAILED_CALLS, 'failed call')} the rest of the career advances):",
        file=sys.stderr,
    )
    for name, res, path in degraded:
        llm = res["llm"]
        final = [e for e in llm.get("errors") or [] if not e.get("retried")]
        last = final[-1] if final else {}
        adv = res.get("auto_advances") or {}
        without = int(adv.get("llm_failed", 0)) + int(adv.get("llm_failures_exhausted", 0))
        print(
            visible(
                f"  {name}: {llm['failed_calls']} of {count(llm['calls'], 'LLM call')} failed "
                f"({_months_text([int(e['month']) for e in final if 'month' in e])}; last: "
                f"{last.get('kind', '?')}: {str(last.get('message', '?'))[:200]}); {count(without, 'month')} advanced "
                f"without the model; Impact {res['impact']['total']:.1f} recorded in {path}",
                newlines=True,
            ),
            file=sys.stderr,
        )
    print(
        "pibench agent: every finished run directory is kept and is never played again; to play one of "
        "these careers again once the endpoint works, move its run directory away and run the same command "
        f"(exit status {EXIT_LLM_FAILED_PARTWAY})",
        file=sys.stderr,
    )


def _price_for(prices: dict[str, Any], results: list[Any], label: str) -> tuple[Any, str]:
    """The price of this label (``--price`` by label or model and the plan's, resolved per
    label by :func:`~pibench_tui.harness.plan.with_prices`) and the model's name."""
    model = next((str(r.get("model")) for r in results if isinstance(r, dict) and r.get("model")), label)
    return prices.get(label), model


def _summarise(
    careers: list[Any],
    results: list[Any],
    check: Callable[[Any], str] | None = None,
    prices: dict[str, Any] | None = None,
) -> int:
    """Print, for each label and scenario (a title line above each when there are several),
    the per-seed table and the cost line (stdout) and every failure (stderr); return the
    exit status. ``check(career)`` says what to check when a career's LLM never answered
    (its backend's settings); ``prices`` (label -> :class:`pibench_tui.pricing.Price`)
    adds USD per career.

    A career is *failed* when it raised (not finished: resumable, unless its directory holds
    other settings) or when the LLM never answered; *degraded* when it finished but some LLM
    calls failed for good (:data:`EXIT_LLM_FAILED_PARTWAY`).
    """
    advise = check or (lambda _c: "check --base-url, --model and the key")
    groups: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
    for c, res in zip(careers, results, strict=True):
        groups.setdefault((c.settings.label, c.settings.shown_scenario), []).append((c, res))
    many = len(groups) > 1
    failed = 0
    degraded: list[tuple[str, dict[str, Any], Any]] = []
    for (label, scenario), rows in groups.items():
        names = [c.name for c, _ in rows]
        group = [res for _, res in rows]
        who = f"{label} {scenario} " if many else ""
        if many:
            print(visible(f"{label} · {scenario}"))
        price, model = _price_for(prices or {}, group, label)
        bad, finished = _summary_rows(names, group, max(8, *(len(n) for n in names)), price, who)
        _summary_cost(finished, price, model)
        failed += bad + _summary_never_answered(finished, advise(rows[0][0]), who)
        paths = {c.name: c.path for c, _ in rows}
        degraded += [
            (f"{who}seed {name}", res, paths[name])
            for name, res in finished
            if res["llm"]["failed_calls"] and res["llm"]["failed_calls"] < res["llm"]["calls"]
        ]
    if degraded:
        _summary_degraded(degraded, len(careers))
    if failed:
        return EXIT_FAILED
    return EXIT_LLM_FAILED_PARTWAY if degraded else EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Run ``pibench replay``; exit status 2 for a usage error (a RUN_DIR or ``--seal`` that
    is not there: nothing replayed), else 1 when any run does not replay, else 2 when a sealed
    run could not be checked (no ``--seal``), else 0."""
    import os

    from pibench_tui.cli.argtypes import input_file_problem
    from pibench_tui.harness.replay import replay_run
    from pibench_tui.harness.runcheck import RUN_NAME, Found, find_run_folders

    missing = [root for root in args.runs if not os.path.lexists(root)]
    problem = (
        input_file_problem("--seal", args.seal, "the seal file `pibench seal --out FILE` wrote") if args.seal else None
    )
    if missing or problem is not None:
        said = problem or f"{missing[0]}: no such folder; give run directories or folders holding them"
        print(visible(f"pibench replay: error: {said}", newlines=True), file=sys.stderr)
        return EXIT_USAGE
    dirs: list[Found] = []
    for root in args.runs:  # the report's walk: a link to a folder is listed, a FIFO result.json refused
        found = [f for f in find_run_folders(root) if f.problem or os.path.lexists(f.path / "result.json")]
        if not found:
            print(
                visible(f"pibench replay: {root}: no completed run (no result.json) here", newlines=True),
                file=sys.stderr,
            )
            return 1
        dirs.extend(found)
    bad = unchecked = 0
    for f in dirs:
        d = f.path
        if f.problem is not None:
            if f.foreign or not RUN_NAME.match(d.name):  # a folder that is no run folder: said, not a run's verdict
                print(visible(f"not a run  {d}: {f.problem}", newlines=True))
                continue
            print(visible(f"INVALID  {d}: {f.problem}", newlines=True))
            bad += 1
            continue
        try:
            verdict = replay_run(d, args.seal, check_transcripts=args.check_transcripts, check_budget=args.check_budget)
        except (OSError, ValueError) as exc:
            print(visible(f"INVALID  {d}: {exc}", newlines=True))
            bad += 1
            continue
        except Exception as exc:  # noqa: BLE001 - one hostile folder never stops the check of the others
            print(visible(f"INVALID  {d}: cannot be checked: {type(exc).__name__}: {exc}", newlines=True))
            bad += 1
            continue
        if verdict.get("sealed"):
            print(visible(f"sealed   {d}: {verdict['message']}", newlines=True))
            unchecked += 1
            continue
        word = "INVALID" if not verdict["valid"] else "unchecked" if verdict.get("unchecked") else "valid  "
        print(visible(f"{word}  {d}: {verdict['message']}", newlines=True))
        unchecked += bool(verdict["valid"] and verdict.get("unchecked"))
        if verdict.get("not_recorded"):
            print(visible(f"pibench replay: not recorded: {verdict['not_recorded']}", newlines=True), file=sys.stderr)
        bad += not verdict["valid"]
    return 1 if bad else 2 if unchecked else 0
