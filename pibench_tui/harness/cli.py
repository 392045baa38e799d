"""``pibench agent`` and ``pibench replay``: parsers and commands (imported only when run)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from pibench_tui.cli.argtypes import non_negative_int, positive_int
from pibench_tui.textsafe import visible

from . import defaults

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
#: LLM never answered in a career, a bad scenario or key, or Ctrl-C.
EXIT_FAILED = 1
#: A usage error (argparse's own status).
EXIT_USAGE = 2
#: Every career was played to its end, but in some the LLM endpoint failed partway: calls
#: failed for good after their retries, and those months advanced without the model
#: (MECHANICS §16). The careers are recorded; the command names each one and why.
EXIT_LLM_FAILED_PARTWAY = 3

_AGENT_EPILOG = """\
The §16 contract: every month a fresh conversation (system prompt + month message with
your notes, last month's report and the dashboard); at most --max-turns replies; the
first ```python block of a reply runs in the same sandbox as `pibench headless`;
time.next_month() ends the month (after the last turn it ends anyway).

Each career writes OUT/LABEL/SCENARIO-SEED/ (transcript.jsonl, result.json,
actions.jsonl, months.jsonl, integrity.json, eval.json). A killed run resumes at the
last completed month when the same command is run again; a finished career (its
result.json) is kept and never played again.

exit status:
  0  every career played to its end, every LLM call answered (after retries)
  1  a career could not be played or did not finish (the same command resumes it at its
     last completed month), the LLM never answered in a career, a run directory of other
     settings, a bad scenario or key, or Ctrl-C
  2  a usage error
  3  every career played to its end, but in some the LLM endpoint failed partway: calls
     failed after their retries and those months advanced without the model (§16); the
     careers are recorded and listed on stderr with the errors (move a run directory
     away and run the same command again to play that career again)

examples:
  pibench agent --model qwen2.5-coder --base-url http://localhost:11434/v1 --seeds 101-103
  pibench agent --model gpt-4.1 --seeds 101-103 --jobs 3        # key in $OPENAI_API_KEY
  pibench agent --model scripted --command 'python my_agent.py' --scenario short-12
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
        return parse_seeds(text)
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
    reserved = sorted({"model", "messages"} & set(value))
    if reserved:
        raise argparse.ArgumentTypeError(f"may not set {', '.join(reserved)} (the harness sends those)")
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
        "--model", required=True, metavar="NAME", help="model name sent to the endpoint (and shown in reports)"
    )
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (default: OpenAI's)")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
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
        help="run the --command backend as this user (no supplementary groups; pibench must run as root). "
        "Required with sealed seeds: the backend must not be able to read the seal file or the run folders",
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
    p.add_argument("--out", default="runs", metavar="DIR", help="output folder (default ./runs)")
    p.add_argument(
        "--label", metavar="L", help="run label, the folder under --out (default: the model name, plus -no-memory)"
    )
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=1,
        metavar="N",
        help="careers played at the same time (default %(default)s)",
    )
    p.add_argument(
        "--max-turns",
        type=_positive_int,
        default=defaults.MAX_TURNS,
        metavar="N",
        help="code turns per month (default %(default)s)",
    )
    p.add_argument(
        "--temperature",
        type=_float_in(0.0, 2.0, "--temperature"),
        default=defaults.TEMPERATURE,
        metavar="T",
        help="sampling temperature (default %(default)s)",
    )
    p.add_argument(
        "--max-tokens",
        type=_positive_int,
        default=defaults.MAX_TOKENS,
        metavar="N",
        help="output tokens per reply (default %(default)s)",
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
        help="a JSON object merged into every request body (a provider's own fields), e.g. '{\"top_p\": 0.9}'",
    )
    p.add_argument(
        "--header",
        action="append",
        type=_header,
        default=[],
        metavar="K:V",
        help="an extra HTTP header of every request (repeatable; values are never recorded)",
    )
    p.add_argument(
        "--no-endpoint-check",
        action="store_true",
        help="skip the one tiny request that checks the endpoint answers before any career starts",
    )
    p.add_argument(
        "--redo-failed",
        action="store_true",
        help="play again the finished careers in which the LLM never answered (their result.json is kept "
        "beside as abandoned-N.result.json and their tokens are counted as abandoned)",
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
        type=_float_in(0.1, 3600.0, "--block-timeout"),
        default=defaults.BLOCK_TIMEOUT,
        metavar="S",
        help="wall-clock limit per code block in seconds (default %(default)g)",
    )
    p.add_argument(
        "--retries",
        type=_non_negative_int,
        default=defaults.RETRIES,
        metavar="N",
        help="retries of a failed LLM call (default %(default)s)",
    )
    p.add_argument(
        "--retry-base",
        type=_float_in(0.0, 600.0, "--retry-base"),
        default=defaults.RETRY_BASE,
        metavar="S",
        help="first backoff in seconds, doubled per retry (default %(default)g)",
    )
    p.add_argument(
        "--request-timeout",
        type=_float_in(0.1, 3600.0, "--request-timeout"),
        default=defaults.REQUEST_TIMEOUT,
        metavar="S",
        help="time-out of one LLM request in seconds (default %(default)g)",
    )
    p.set_defaults(func=cmd_agent)


def add_replay_parser(sub: Any) -> None:
    """Register ``replay`` on the ``pibench`` subparsers."""
    p = sub.add_parser(
        "replay",
        help="re-simulate run directories and confirm their Impact and state digest",
        description="Re-simulate each run's action log; confirm result.json's Impact and digest; "
        "mark the result valid or invalid. Exit status 1 if any is invalid, else 2 if a sealed run "
        "could not be checked (no --seal FILE; nothing is recorded for it), else 0.",
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
        action="store_true",
        help="also re-run each agent run's recorded code blocks in a fresh agent process against the replayed "
        "world and require exactly the logged calls (the action log must come from the transcript; agent code "
        "must be deterministic); the first divergence is named",
    )
    p.set_defaults(func=cmd_replay)


def cmd_agent(args: argparse.Namespace) -> int:
    """Run ``pibench agent``; the exit status is :data:`EXIT_OK`, :data:`EXIT_FAILED`,
    :data:`EXIT_USAGE` or :data:`EXIT_LLM_FAILED_PARTWAY` (see the epilog)."""
    from pibench_tui.harness.backends import Backend, CommandBackend, OpenAIBackend, RequestOptions, RetryPolicy
    from pibench_tui.harness.loop import AgentSettings, CareerInterrupted, run_careers
    from pibench_tui.textsafe import clean
    from scenarios import ScenarioError, load_scenario

    # names from the command line enter run directories and requests: bytes that are not
    # UTF-8 (surrogate escapes in argv) become U+FFFD, never a UnicodeEncodeError mid-career
    args.model = clean(args.model)
    args.label = clean(args.label) if args.label is not None else None
    if args.backend_command is not None and args.base_url is not None:
        print("pibench agent: error: --command and --base-url are two different backends; give one", file=sys.stderr)
        return EXIT_USAGE
    if args.command_user is not None and args.backend_command is None:
        print("pibench agent: error: --command-user applies to a --command backend only", file=sys.stderr)
        return EXIT_USAGE
    try:
        scen = load_scenario(args.scenario)
    except ScenarioError as exc:
        print(f"pibench agent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    spec = args.seeds
    seeds = list(spec.seeds) if spec is not None else [scen.seed]
    sealed = spec is not None and spec.sealed
    commitments = list(spec.commitments) if sealed else None
    allow = bool(args.allow_incomplete_confinement)
    if sealed:
        from pibench_tui.cli.seeds import require_confinement

        refusal = require_confinement(allow_incomplete=allow)
        if refusal is not None:
            print(f"pibench agent: a sealed evaluation is refused: {refusal}", file=sys.stderr)
            return EXIT_FAILED
    if sealed and args.base_url is not None and _on_this_machine(args.base_url):
        print(
            f"pibench agent: note: --base-url {visible(args.base_url)} is served on this machine; a sealed evaluation "
            "trusts its server not to read the seal file or --out (run it as another user; docs/agent.md)",
            file=sys.stderr,
        )
    command_user: tuple[int, int] | None = None
    if args.command_user is not None or (sealed and args.backend_command is not None):
        checked = _command_user(args.command_user, spec.source[1:] if sealed else None, args.out)
        if isinstance(checked, str):
            print(f"pibench agent: {'a sealed evaluation is refused: ' if sealed else ''}{checked}", file=sys.stderr)
            return EXIT_FAILED
        command_user = checked
    names = [spec.label(i) if spec is not None else str(s) for i, s in enumerate(seeds)]
    proved = _prove_confinement(sealed and not allow)
    if isinstance(proved, str):
        print(f"pibench agent: {proved}", file=sys.stderr)
        return EXIT_FAILED
    print(f"pibench agent: {proved.describe()}", file=sys.stderr)
    label = args.label or (args.model + ("-no-memory" if args.no_memory else ""))
    options = RequestOptions(
        token_param="max_completion_tokens" if args.max_completion_tokens is not None else "max_tokens",
        send_temperature=not args.no_temperature,
        reasoning_effort=args.reasoning_effort,
        extra_body=args.extra_body or {},
        headers=dict(args.header),
    )
    if args.max_completion_tokens is not None:
        args.max_tokens = args.max_completion_tokens
    settings = AgentSettings(
        model=args.model,
        label=label,
        scenario=scen.name,
        config=scen.config,
        max_turns=args.max_turns,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        memory=not args.no_memory,
        block_timeout=args.block_timeout,
        request=options.settings(),
        allow_incomplete_confinement=allow,
    )
    policy = RetryPolicy(retries=args.retries, base=args.retry_base, timeout=args.request_timeout)

    def make_backend() -> Backend:
        if args.backend_command is not None:
            return CommandBackend(
                args.backend_command,
                user=command_user,
                model=args.model,
                temperature=args.temperature,
                max_tokens=args.max_tokens,
                policy=policy,
                options=options,
            )
        return OpenAIBackend(
            args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            policy=policy,
            options=options,
        )

    try:
        make_backend()  # fail early on a missing key, package or command line
    except ValueError as exc:
        print(f"pibench agent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    check = (
        "check the --command program (it must print a reply and exit 0)"
        if args.backend_command is not None
        else "check --base-url, --model and the key"
    )
    if args.redo_failed:
        from pibench_tui.harness.loop import set_aside_failed

        for name, seed, commit in zip(names, seeds, commitments or [None] * len(seeds), strict=True):
            moved = set_aside_failed(settings, seed, args.out, commitment=commit)
            if moved is not None:
                print(
                    visible(
                        f"pibench agent: seed {name}: the LLM never answered; playing it again "
                        f"(the old result kept as {moved})",
                        newlines=True,
                    ),
                    file=sys.stderr,
                )
    from pibench_tui.harness.rundir import career_dir

    to_play = [
        career_dir(args.out, label, scen.name, None if commit else seed, commit)
        for seed, commit in zip(seeds, commitments or [None] * len(seeds), strict=True)
    ]
    if not args.no_endpoint_check and any(not (d / "result.json").is_file() for d in to_play):
        refusal = endpoint_check(make_backend())
        if refusal is not None:
            print(
                visible(
                    f"pibench agent: the endpoint check failed, no career was started: {refusal}; {check} "
                    "(or --no-endpoint-check to skip this check)",
                    newlines=True,
                ),
                file=sys.stderr,
            )
            return EXIT_FAILED
    try:
        results = run_careers(settings, make_backend, seeds, args.out, jobs=args.jobs, commitments=commitments)
    except (KeyboardInterrupt, CareerInterrupted):
        print(
            "pibench agent: interrupted; run the same command again to resume at the last completed month",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return _summarise(names, results, args.out, label, scen.name, check=check, prices=dict(args.price or []))


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


def _on_this_machine(url: str) -> bool:
    """Whether ``url``'s host is this machine (a loopback address or name, or this host's
    name): its server could read this machine's files as its own user."""
    import ipaddress
    import socket
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host in ("localhost", socket.gethostname().lower()) or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback or ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _command_user(user: str | None, seal: str | None, out: str) -> tuple[int, int] | str:
    """``(uid, gid)`` of ``--command-user USER``, or why it cannot run the backend.

    With ``seal`` (a sealed evaluation; the seal file's path) the backend must not be able
    to read it nor enter ``out`` (created owner-only when missing): a process of that user
    tries both (``cat`` the seal, ``cd`` into ``out``) before any career, and either working
    is the refusal, naming the path. ``user`` ``None`` in a sealed evaluation is refused
    (:data:`SEALED_COMMAND_REFUSAL`)."""
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


def career_cost(res: dict[str, Any], price: Any) -> float:
    """USD of a finished career at ``price`` (:class:`pibench_tui.pricing.Price`): its
    prompt (cached ones at the cached price when the provider reported them) and completion
    tokens, plus the tokens of its abandoned attempts (paid for, not in its counts)."""
    from pibench_tui.pricing import cost_usd

    prompt, completion, cached, ab_prompt, ab_completion = _career_tokens(res)
    return cost_usd(price, prompt, completion, cached) + cost_usd(price, ab_prompt, ab_completion)


def _summary_rows(
    names: list[str], results: list[Any], width: int, price: Any
) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
    """The per-seed table on stdout and each career's error on stderr; returns the number of
    careers that raised and the finished ones."""
    from pibench_tui.harness.loop import RunConflict

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
                visible(f"pibench agent: seed {name}: {type(res).__name__}: {res} ({how})", newlines=True),
                file=sys.stderr,
            )
            continue
        finished.append((name, res))
        state = f"collapse {res['collapse_month']}" if res["collapsed"] else "horizon"
        llm = res["llm"]
        _p, _c, _cached, ab_p, ab_c = _career_tokens(res)
        cost = f" {career_cost(res, price):>9.2f}" if price is not None else ""
        print(
            f"{name:>{width}}  {res['impact']['total']:>9.1f}  {state:<10} {res['tokens']['total']:>10,} "
            f"{ab_p + ab_c:>9,}{cost} {llm['calls']:>6} {llm['failed_calls']:>6} {res['integrity']['flags']:>5}"
        )
    return failed, finished


def _summary_cost(finished: list[tuple[str, dict[str, Any]]], price: Any, model: str) -> None:
    """One line: tokens per career (cached and abandoned apart) and, with a price, USD per career."""
    if not finished:
        return
    n = len(finished)
    counts = [_career_tokens(res) for _name, res in finished]
    per = sum(p + c for p, c, _cached, _ap, _ac in counts) / n
    cached_known = [cached for _p, _c, cached, _ap, _ac in counts if cached is not None]
    abandoned = sum(ap + ac for _p, _c, _cached, ap, ac in counts) / n
    parts = [f"tokens per career {per:,.0f}"]
    if cached_known:
        parts.append(f"cached prompt {sum(cached_known) / len(cached_known):,.0f}")
    parts.append(f"abandoned {abandoned:,.0f} (not in the tokens; interrupted turns, careers redone)")
    if price is not None:
        usd = sum(career_cost(res, price) for _name, res in finished) / n
        cached_note = "" if price.cached is None else f", cached {price.cached:g}"
        parts.insert(
            0, f"cost per career ${usd:,.2f} at ${price.prompt:g} in, ${price.completion:g} out{cached_note} per Mtok"
        )
    else:
        parts.append(f"cost: give --price {model}=IN,OUT[,CACHED]")
    print(f"over {n} finished career(s): " + "; ".join(parts))


def _summary_never_answered(finished: list[tuple[str, dict[str, Any]]], check: str) -> int:
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
                    f"pibench agent: seed {name}: the LLM never answered ({llm['failed_calls']} failed calls; last: "
                    f"{why.get('kind', '?')}: {why.get('message', '?')}); {check}; "
                    "the career was auto-advanced and recorded: run the same command with --redo-failed to play "
                    "it again (or delete its run directory)",
                    newlines=True,
                ),
                file=sys.stderr,
            )
    return failed


def _summary_degraded(
    degraded: list[tuple[str, dict[str, Any]]], total: int, out: str, label: str, scenario: str
) -> None:
    """On stderr: the careers in which some LLM calls failed for good, and what that did."""
    from pibench_tui.harness.loop import MAX_FAILED_CALLS
    from pibench_tui.harness.rundir import career_dir

    print(
        f"pibench agent: in {len(degraded)} of {total} career(s) the LLM endpoint failed partway; "
        "those months advanced without the model (MECHANICS §16: a call that fails after its retries "
        f"ends the month, and after {MAX_FAILED_CALLS} failed calls the rest of the career advances):",
        file=sys.stderr,
    )
    for name, res in degraded:
        llm = res["llm"]
        final = [e for e in llm.get("errors") or [] if not e.get("retried")]
        last = final[-1] if final else {}
        adv = res.get("auto_advances") or {}
        without = int(adv.get("llm_failed", 0)) + int(adv.get("llm_failures_exhausted", 0))
        path = career_dir(out, label, scenario, res.get("seed"), res.get("seed_commitment"))
        print(
            visible(
                f"  seed {name}: {llm['failed_calls']} of {llm['calls']} LLM calls failed "
                f"({_months_text([int(e['month']) for e in final if 'month' in e])}; last: "
                f"{last.get('kind', '?')}: {str(last.get('message', '?'))[:200]}); {without} month(s) advanced "
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
    """The price of this run (by model, else label) and the model's name."""
    model = next((str(r.get("model")) for r in results if isinstance(r, dict) and r.get("model")), label)
    return prices.get(model) or prices.get(label), model


def _summarise(
    names: list[str],
    results: list[Any],
    out: str,
    label: str,
    scenario: str,
    check: str = "check --base-url, --model and the key",
    prices: dict[str, Any] | None = None,
) -> int:
    """Print the per-seed table and the cost line (stdout) and every failure (stderr); return
    the exit status. ``check`` says what to check when a career's LLM never answered (the
    backend's settings); ``prices`` (``--price``: model or label -> :class:`pibench_tui.pricing.Price`)
    adds USD per career.

    A career is *failed* when it raised (not finished: resumable, unless its directory holds
    other settings) or when the LLM never answered; *degraded* when it finished but some LLM
    calls failed for good (:data:`EXIT_LLM_FAILED_PARTWAY`).
    """
    price, model = _price_for(prices or {}, results, label)
    width = max(8, *(len(n) for n in names))
    failed, finished = _summary_rows(names, results, width, price)
    _summary_cost(finished, price, model)
    failed += _summary_never_answered(finished, check)
    degraded = [
        (name, res)
        for name, res in finished
        if res["llm"]["failed_calls"] and res["llm"]["failed_calls"] < res["llm"]["calls"]
    ]
    if degraded:
        _summary_degraded(degraded, len(names), out, label, scenario)
    if failed:
        return EXIT_FAILED
    return EXIT_LLM_FAILED_PARTWAY if degraded else EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Run ``pibench replay``; exit status 1 when any run does not replay, else 2 when a
    sealed run could not be checked (no ``--seal``), else 0."""
    from pibench_tui.harness.replay import replay_run
    from pibench_tui.harness.rundir import iter_run_dirs

    dirs = []
    for root in args.runs:
        found = [d for d in iter_run_dirs(root) if (d / "result.json").is_file()]
        if not found:
            print(f"pibench replay: {root}: no completed run (no result.json) here", file=sys.stderr)
            return 1
        dirs.extend(found)
    bad = unchecked = 0
    for d in dirs:
        try:
            verdict = replay_run(d, args.seal, check_transcripts=args.check_transcripts)
        except (OSError, ValueError) as exc:
            print(visible(f"INVALID  {d}: {exc}", newlines=True))
            bad += 1
            continue
        if verdict.get("sealed"):
            print(visible(f"sealed   {d}: {verdict['message']}", newlines=True))
            unchecked += 1
            continue
        print(visible(f"{'valid  ' if verdict['valid'] else 'INVALID'}  {d}: {verdict['message']}", newlines=True))
        bad += not verdict["valid"]
    return 1 if bad else 2 if unchecked else 0
