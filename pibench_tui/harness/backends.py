"""Where replies come from: an OpenAI-compatible endpoint or a local command (MECHANICS §16).

Both backends answer :meth:`Backend.complete` with a :class:`Completion` (the reply text,
token usage, wall time, attempts and the errors met on the way) or raise
:class:`LLMCallFailed` once the call has failed for good. Retries with exponential backoff
(5 by default) are made here on rate limits (429), server errors (5xx), time-outs and lost
connections; other errors (a bad request, a wrong key, an unreadable answer) fail at once
and are recorded.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pibench_tui.harness import defaults
from pibench_tui.harness.limits import EndpointLimiter, estimate_tokens
from pibench_tui.textsafe import clean

__all__ = [
    "Backend",
    "CommandBackend",
    "Completion",
    "LLMCallFailed",
    "OpenAIBackend",
    "RequestOptions",
    "RetryPolicy",
    "parameter_error",
]


@dataclass(frozen=True)
class RetryPolicy:
    """How failed calls are retried.

    Attributes:
        retries: Retries after the first attempt (MECHANICS §16: 5).
        base: First backoff, in seconds; doubled each retry.
        cap: Longest backoff, in seconds (a ``Retry-After`` header is obeyed up to it).
        timeout: Wall-clock limit of one attempt, in seconds (the whole answer, however it
            trickles in).
    """

    retries: int = defaults.RETRIES
    base: float = defaults.RETRY_BASE
    cap: float = 60.0
    timeout: float = defaults.REQUEST_TIMEOUT

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry ``attempt`` (1-based), with ±25 % jitter."""
        if retry_after is not None and retry_after >= 0:
            return float(min(self.cap, retry_after))
        d = min(self.cap, self.base * (2 ** (attempt - 1)))
        return float(d * (0.75 + 0.5 * random.random()))


@dataclass
class Completion:
    """One successful chat completion.

    Attributes:
        text: The reply.
        prompt_tokens / completion_tokens: From the endpoint's usage (``None`` if it gave none).
        seconds: Wall time of the whole call, retries and waits included.
        attempts: Attempts made (1 = no retry).
        errors: The retried errors, ``{"kind", "status", "message", "seconds"}`` each.
        finish_reason: The endpoint's finish reason (``"length"`` = cut at max tokens).
        model_id: The model the provider says answered (the response's ``model``), if any.
        request_id: The provider's id of the response (its ``id``), if any.
        reasoning_tokens: Completion tokens spent on reasoning, when the provider reports them.
        cached_tokens: Prompt tokens served from the provider's cache, when reported.
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    attempts: int = 1
    errors: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    model_id: str | None = None
    request_id: str | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None


class LLMCallFailed(Exception):
    """A call failed for good (retries exhausted, or an error not worth retrying).

    Attributes:
        kind: ``rate_limit``, ``server_error``, ``timeout``, ``connection``,
            ``bad_request``, ``auth``, ``bad_response``, ``command_failed`` ...
        errors: Every attempt's error, the last one included.
        seconds: Wall time spent on the call.
        attempts: Attempts made.
    """

    def __init__(self, kind: str, message: str, errors: list[dict[str, Any]], seconds: float, attempts: int) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.errors = errors
        self.seconds = seconds
        self.attempts = attempts


class _Attempt(Exception):
    """One failed attempt: ``retryable`` decides whether another one is made."""

    def __init__(
        self, kind: str, message: str, retryable: bool, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


#: What a secret's value is recorded as (``--extra-body`` fields and headers that may hold a
#: secret, URL passwords and key-like query values).
REDACTED = "<redacted>"
#: Endings of a request-body field name (lower case, separators dropped) that always hold a
#: secret: ``api_key``, ``apiKey``, ``x-api-key``, ``access_token``, ``client_secret``,
#: ``password``, ``private_key``. Precise on purpose: ``prompt_cache_key``, ``eos_token``,
#: ``stop_token``, ``max_tokens`` are settings, recorded as given unless their value looks
#: like a credential (:func:`looks_like_credential`).
_SECRET_ENDINGS = (
    "apikey",
    "apitoken",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "bearertoken",
    "sessiontoken",
    "securitytoken",
    "accesskey",
    "secretkey",
    "privatekey",
    "signingkey",
    "subscriptionkey",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "credential",
    "credentials",
    "cookie",
)
#: Whole field names (lower case, separators dropped) that hold a secret.
_SECRET_NAMES = frozenset({"key", "token", "auth", "bearer", "jwt"})


def is_secret_name(name: str) -> bool:
    """Whether a request-body field named ``name`` always holds a secret: a name ending as in
    :data:`_SECRET_ENDINGS`, one of :data:`_SECRET_NAMES`, or an ``authorization`` /
    ``authentication`` name. Other names (``prompt_cache_key``, ``eos_token``) are judged by
    their value (:func:`is_secret_field`)."""
    compact = "".join(ch for ch in str(name).lower() if ch.isalnum())
    return (
        compact.endswith(_SECRET_ENDINGS) or compact in _SECRET_NAMES or compact.startswith(("authoriz", "authentic"))
    )


#: Schemes and prefixes a credential value starts with, whatever its field or header is
#: called (``Bearer ...``, OpenAI's ``sk-...``, Google's ``AIza...``, GitHub's ``ghp_...``,
#: Hugging Face's ``hf_...``, Slack's ``xox...``).
_CREDENTIAL_SCHEMES = (
    "bearer ",
    "basic ",
    "token ",
    "digest ",
    "negotiate ",
    "aws4-",
    "sk-",
    "pk-",
    "sk_",
    "pk_",
    "aiza",
    "ghp_",
    "gho_",
    "github_pat_",
    "hf_",
    "xox",
)
#: An opaque run of this many characters of a key's alphabet (letters, digits, ``+/=``; no
#: ``-``, ``.`` or ``_``, so ``meta-llama-3.1-70b-instruct`` is no credential) holding both
#: letters and digits reads as a credential.
_OPAQUE_RUN = 20


def looks_like_credential(value: Any) -> bool:
    """Whether ``value`` (a string; anything else is not) looks like a credential: it starts
    with one of :data:`_CREDENTIAL_SCHEMES` (case-insensitive), or holds an opaque run of at
    least :data:`_OPAQUE_RUN` letters, digits and ``+/=`` with both letters and digits (a
    hex or base64 key, a JWT's parts). The one detector of secret values: headers, request
    body fields and URLs (:func:`is_secret_header`, :func:`is_secret_field`, :func:`redact_url`)."""
    import re

    if not isinstance(value, str):
        return False
    text = value.strip().lower()
    if text.startswith(_CREDENTIAL_SCHEMES):
        return True
    return any(
        re.search(r"[a-z]", run) and re.search(r"[0-9]", run)
        for run in re.findall(rf"[a-z0-9+/=]{{{_OPAQUE_RUN},}}", text)
    )


def is_secret_field(name: str, value: Any) -> bool:
    """Whether a request-body field's value is recorded as :data:`REDACTED`: its name always
    holds a secret (:func:`is_secret_name`), or its value looks like one
    (:func:`looks_like_credential`: ``{"user": "sk-proj-..."}``), or it is a ``*_token`` field
    (``github_token``, ``hf_token``) whose value is a plain word of 8 or more characters
    (a special token such as ``eos_token = "</s>"`` or ``"<|eot_id|>"`` is a setting)."""
    if is_secret_name(name) or looks_like_credential(value):
        return True
    compact = "".join(ch for ch in str(name).lower() if ch.isalnum())
    return compact.endswith("token") and isinstance(value, str) and bool(_PLAIN_WORD.fullmatch(value))


#: A value that is one plain word of 8 or more characters (letters, digits, ``-_.+/=``).
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_\-.+/=]{8,}")


def redact_secrets(value: Any) -> Any:
    """``value`` (an ``--extra-body`` JSON value) with every secret replaced by
    :data:`REDACTED`, at any depth: a field :func:`is_secret_field` judges (by its name or its
    value), and a string in a list that looks like a credential. What is recorded
    (``result.json``, the transcript, the settings fingerprint) never holds a key; the
    request itself sends the values. A redacted field keeps its name, so its presence is
    still part of the settings (a different value is not: :data:`REDACTED` is all that is
    compared)."""
    if isinstance(value, dict):
        return {k: REDACTED if is_secret_field(k, v) else redact_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_secrets(v) for v in value]
    return REDACTED if looks_like_credential(value) else value


#: Parts of a header name (lower case, separators dropped) that mark a secret header: its value is
#: recorded as :data:`REDACTED` (``authorization``, ``x-api-key``, ``helicone-auth``,
#: ``x-portkey-virtual-key``, ``cookie``, ``x-session-id``, ``x-amz-security-token`` ...).
#: Also used for URL query parameters (``?api-key=``, ``?key=``, ``?sig=``).
_SECRET_HEADER_PARTS = (
    "auth",
    "key",
    "token",
    "secret",
    "pass",
    "cookie",
    "session",
    "signature",
    "credential",
    "bearer",
    "jwt",
    "cert",
)


def is_secret_header(name: str, value: str) -> bool:
    """Whether an extra HTTP header (or a URL query parameter) may hold a secret, so that its
    value is never written to disk: a name that :func:`is_secret_name` names or that holds
    one of :data:`_SECRET_HEADER_PARTS`, or a value that looks like a credential
    (:func:`looks_like_credential`). A false alarm costs only the value's comparison (the
    name is still recorded); a secret missed would be on disk."""
    compact = "".join(ch for ch in str(name).lower() if ch.isalnum())
    if is_secret_name(name) or any(part in compact for part in _SECRET_HEADER_PARTS) or compact == "sig":
        return True
    return looks_like_credential(str(value))


def _redact_query(query: str) -> str:
    """A URL's query with the value of each parameter :func:`is_secret_header` judges secret
    replaced by :data:`REDACTED` (a bare item that looks like a credential as a whole); the
    other items are kept byte for byte."""
    from urllib.parse import unquote_plus

    out = []
    for item in query.split("&"):
        name, eq, value = item.partition("=")
        if eq and is_secret_header(unquote_plus(name), unquote_plus(value)):
            out.append(f"{name}={REDACTED}")
        elif not eq and looks_like_credential(unquote_plus(name)):
            out.append(REDACTED)
        else:
            out.append(item)
    return "&".join(out)


def redact_url(url: str | None) -> str | None:
    """``url`` as it may be recorded or shown: the password of its user information
    (``http://user:PASSWORD@host``) and a user name that looks like a credential replaced by
    :data:`REDACTED`, as are the values of query parameters that may hold a secret
    (``?api-key=...``, ``?key=...``, :func:`is_secret_header`) and path segments that look
    like a credential (:func:`looks_like_credential`); the fragment (never sent) is dropped.
    ``None`` stays ``None``; a URL that cannot be parsed is recorded as :data:`REDACTED`."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    if url is None:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    info, at, host = netloc.rpartition("@")
    if at:
        user, colon, _password = info.partition(":")
        user = REDACTED if looks_like_credential(unquote(user)) else user
        netloc = f"{user}{':' + REDACTED if colon else ''}@{host}"
    path = "/".join(REDACTED if looks_like_credential(unquote(seg)) else seg for seg in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, path, _redact_query(parts.query) if parts.query else "", ""))


def redact_command(command: str) -> str:
    """A ``--command`` line as it may be recorded: each word (split like a shell would) that
    looks like a credential (:func:`looks_like_credential`), or whose value after ``=`` does
    (``KEY=sk-...``, ``--api-key=...``), or that follows an option named like a secret
    (``--api-key sk-...``, ``--token X``: :func:`is_secret_name`) is replaced by
    :data:`REDACTED` in the text; the rest is kept as typed."""
    try:
        words = shlex.split(command)
    except ValueError:
        return REDACTED

    def credential(word: str) -> bool:  # a path's segments, not the path ("/opt/llama3/bin/serve2")
        return any(looks_like_credential(seg) for seg in word.split("/"))

    def named_secret(name: str, value: str) -> bool:
        """MY_TOKEN=..., --github-token ...: a name the body rule names, or one the header rule
        names (not ``--max-tokens``) with a plain word of 8+ characters (not ``--eos-token </s>``)."""
        name = name.lstrip("-")
        if is_secret_name(name):
            return True
        loose = is_secret_header(name, "") and not name.lower().endswith("tokens")
        return loose and bool(_PLAIN_WORD.fullmatch(value))

    # A quoted word holding several (``sh -c 'TOKEN=... python a.py'``) is judged word by word,
    # so only the secret goes, not the rest of the script.
    for word in list(words):
        if any(ch.isspace() for ch in word):
            try:
                words += shlex.split(word)
            except ValueError:
                return REDACTED
    secrets: list[str] = []
    for before, word in zip(["", *words], words, strict=False):
        value = word.partition("=")[2] if "=" in word else ""
        name = word.partition("=")[0] if value else ""
        option = before.startswith("-") and "=" not in before and named_secret(before, word)
        if (credential(word) or option) and not any(ch.isspace() for ch in word):
            secrets.append(word)
        elif value and not any(ch.isspace() for ch in value) and (credential(value) or named_secret(name, value)):
            secrets.append(value)
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SCRUBBED:
            command = command.replace(secret, REDACTED)
    return command


def split_query(url: str | None) -> tuple[str | None, dict[str, str]]:
    """``url`` without its query, and the query's parameters: the client is given them as its
    default query, sent with every request (given inside the base URL, the client appended
    the route after the query, ``/v1?k=v`` + ``chat/completions``, and the server answered 404)."""
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    if url is None:
        return None, {}
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, {}
    if not parts.query:
        return url, {}
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), dict(
        parse_qsl(parts.query, keep_blank_values=True)
    )


#: Shortest secret :func:`scrub` replaces (a shorter one would blank ordinary words).
_MIN_SCRUBBED = 4


def known_secrets(base_url: str | None, key: str | None, options: RequestOptions | None) -> tuple[str, ...]:
    """Every secret a backend sends that :func:`redact_url`, :func:`header_settings` and
    :func:`redact_secrets` keep off the disk (the URL's password, and the Basic credentials
    the client makes of it; a key-like user name, path
    segment or secret query value; the API key; secret header and ``--extra-body`` values),
    each also percent-encoded, longest first: what :func:`scrub` removes from an endpoint's
    error text, which may echo them (``no route /v1/?api-key=...``, ``invalid key sk-...``)."""
    from urllib.parse import parse_qsl, quote, unquote, urlsplit

    found: set[str] = set()
    if key and key != "none":
        found.add(key)
    if base_url:
        try:
            parts = urlsplit(base_url)
            if parts.password:  # the client sends user information as Basic auth: base64 of "user:password"
                import base64

                found.add(unquote(parts.password))
                pair = f"{unquote(parts.username or '')}:{unquote(parts.password)}"
                found.add(base64.b64encode(pair.encode("utf-8")).decode("ascii"))
            if parts.username and looks_like_credential(unquote(parts.username)):
                found.add(unquote(parts.username))
            found.update(unquote(seg) for seg in parts.path.split("/") if looks_like_credential(unquote(seg)))
            found.update(v for k, v in parse_qsl(parts.query, keep_blank_values=True) if v and is_secret_header(k, v))
        except ValueError:
            pass
    if options is not None:
        found.update(v for k, v in options.headers.items() if v and is_secret_header(k, v))

        def walk(value: Any, secret: bool) -> None:
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(v, secret or is_secret_field(k, v))
            elif isinstance(value, list):
                for v in value:
                    walk(v, secret)
            elif isinstance(value, str) and (secret or looks_like_credential(value)):
                found.add(value)

        walk(options.extra_body, False)
    for value in list(found):
        found.add(quote(value, safe=""))
        for word in value.split():  # "Bearer sk-..." may be echoed without its scheme
            if looks_like_credential(word):
                found.add(word)
    return tuple(sorted((x for x in found if len(x) >= _MIN_SCRUBBED), key=len, reverse=True))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every one of ``secrets`` (:func:`known_secrets`) replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


#: Ports a URL scheme implies (left out of :func:`endpoint_setting`).
_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_setting(url: str | None) -> str:
    """Which endpoint answers, as a setting (a career's ``endpoint``: compared on reuse, split
    in the report): ``url`` (``None``: OpenAI's) as scheme, host and port in lower case (a
    scheme's default port left out), path without a trailing ``/``, and query parameters in
    name order with secret values :data:`REDACTED` (:func:`redact_url`); never the user
    information (a password, an account) nor the fragment. ``http://u:pw@Host:80/v1/`` and
    ``http://host/v1`` are one endpoint; another host, port, path or query parameter is
    another one. A URL that cannot be parsed is :data:`REDACTED`."""
    from urllib.parse import urlsplit

    shown = redact_url(url if url is not None else OPENAI_URL)
    assert shown is not None
    try:
        parts = urlsplit(shown)
        port = parts.port
    except ValueError:
        return REDACTED
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    where = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return f"{scheme}://{where}{parts.path.rstrip('/')}" + (f"?{query}" if query else "")


def header_settings(headers: dict[str, str]) -> dict[str, str]:
    """What is recorded of extra HTTP headers (part of a career's settings, compared both ways):
    each name in lower case (names are case-insensitive) with its value, or :data:`REDACTED`
    when the header may hold a secret (:func:`is_secret_header`): a different key does not
    split a label, a different route or version does, and adding or removing any header does."""
    return {
        name.lower(): REDACTED if is_secret_header(name, value) else value
        for name, value in sorted(headers.items(), key=lambda kv: kv[0].lower())
    }


def merge_headers(*tables: dict[str, str]) -> dict[str, str]:
    """``tables`` merged left to right, names compared case-insensitively (a later table's
    ``x-route`` replaces an earlier ``X-Route``; the later spelling is kept)."""
    out: dict[str, str] = {}
    for table in tables:
        for name, value in table.items():
            for old in [k for k in out if k.lower() == name.lower()]:
                del out[old]
            out[name] = value
    return out


def duplicate_header(names: list[str]) -> str | None:
    """The first name of ``names`` given again in any case (``X-Route`` and ``x-route``), or ``None``."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            return name
        seen.add(name.lower())
    return None


@dataclass(frozen=True)
class RequestOptions:
    """How a request is shaped, for providers and gateways that differ from the default.

    Attributes:
        token_param: The name the output-token limit is sent under: ``"max_tokens"``
            (default) or ``"max_completion_tokens"`` (reasoning models).
        send_temperature: ``False``: no ``temperature`` in the request (models that refuse one).
        reasoning_effort: Sent as ``reasoning_effort`` when set (``"low"``, ``"medium"`` ...).
        extra_body: Merged into the request's JSON body (a provider's own fields); recorded
            with secret fields redacted (:func:`redact_secrets`).
        headers: Extra HTTP headers (a gateway's routing or key header); part of the
            settings by name (lower case) and, unless the header may hold a secret, value
            (:func:`header_settings`): a secret's value is never recorded.
    """

    token_param: str = "max_tokens"
    send_temperature: bool = True
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def settings(self) -> dict[str, Any]:
        """The options that change what the model is asked or who answers (empty when all are
        defaults): part of a career's settings fingerprint. The values of secret
        ``extra_body`` fields (:func:`redact_secrets`) and of secret headers
        (:func:`header_settings`) are :data:`REDACTED`."""
        out: dict[str, Any] = {}
        if self.token_param != "max_tokens":
            out["token_param"] = self.token_param
        if not self.send_temperature:
            out["no_temperature"] = True
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        if self.extra_body:
            out["extra_body"] = redact_secrets(self.extra_body)
        if self.headers:
            out["headers"] = header_settings(self.headers)
        return out

    def describe(self) -> dict[str, Any]:
        """:meth:`settings` plus the header names (for ``result.json``)."""
        out = self.settings()
        if self.headers:
            out["header_names"] = sorted(self.headers)
        return out

    def sent_temperature(self, temperature: float) -> float | None:
        """The temperature requests carry: ``temperature``, or ``None`` when none is sent
        (``--no-temperature``; what a backend's ``describe()`` records, never the unsent default)."""
        return temperature if self.send_temperature else None

    def body(self, temperature: float, max_tokens: int) -> dict[str, Any]:
        """The request's fields besides ``model`` and ``messages``."""
        out: dict[str, Any] = {self.token_param: max_tokens}
        if self.send_temperature:
            out["temperature"] = temperature
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        return out


def parameter_error(status: int, exc: Exception) -> str | None:
    """The request parameter a 400/422 answer names (the ``param`` of an OpenAI-style
    error, or an "unsupported/unknown/unrecognized parameter" message), else ``None``."""
    if status not in (400, 422):
        return None
    param = getattr(exc, "param", None)
    if isinstance(param, str) and param:
        return param
    text = str(exc)
    import re

    m = re.search(
        r"(?:unsupported|unknown|unrecognized|invalid|not supported)[^'\"`]{0,40}['\"`]([A-Za-z_][\w.]*)['\"`]",
        text,
        re.I,
    ) or re.search(r"['\"`]([A-Za-z_][\w.]*)['\"`][^.]{0,40}(?:is )?not supported", text, re.I)
    return m.group(1) if m else None


class Backend(Protocol):
    """Anything that turns a conversation into a reply."""

    name: str

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Reply to ``messages`` (``[{"role", "content"}, ...]``); raise :class:`LLMCallFailed`."""
        ...  # pragma: no cover - protocol

    def describe(self) -> dict[str, Any]:
        """The backend's settings for ``result.json`` (never a key)."""
        ...  # pragma: no cover - protocol


def _with_retries(
    attempt: Callable[[], Completion],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    limiter: EndpointLimiter | None = None,
    estimate: int = 0,
) -> Completion:
    """Make attempts until one answers or the policy gives up (:class:`LLMCallFailed`).
    With ``limiter`` (a plan's shared endpoint limits) each attempt first takes a slot of
    it, reserving ``estimate`` tokens; a 429's ``Retry-After`` pauses the whole endpoint."""
    started = time.monotonic()
    errors: list[dict[str, Any]] = []
    n = 0
    while True:
        n += 1
        t0 = time.monotonic()
        try:
            if limiter is None:
                done = attempt()
            else:
                with limiter.slot(estimate) as slot:
                    done = attempt()
                    if done.prompt_tokens is not None or done.completion_tokens is not None:
                        slot.tokens = int(done.prompt_tokens or 0) + int(done.completion_tokens or 0)
        except _Attempt as exc:
            if limiter is not None and exc.status == 429 and exc.retry_after is not None:
                limiter.pause(min(policy.cap, exc.retry_after))
            exc.message = clean(exc.message)  # the backend's own text (stderr, an endpoint's error)
            errors.append(
                {
                    "kind": exc.kind,
                    "status": exc.status,
                    "message": exc.message[:500],
                    "seconds": round(time.monotonic() - t0, 3),
                }
            )
            if not exc.retryable or n > policy.retries:
                raise LLMCallFailed(exc.kind, exc.message, errors, time.monotonic() - started, n) from None
            sleep(policy.delay(n, exc.retry_after))
            continue
        done.text = clean(done.text)  # model text enters pibench here (pibench_tui.textsafe)
        if done.finish_reason is not None:
            done.finish_reason = clean(done.finish_reason)
        done.seconds = time.monotonic() - started
        done.attempts = n
        done.errors = errors
        return done


class OpenAIBackend:
    """Chat completions through the official ``openai`` client (extra ``llm``).

    Args:
        model: The model name sent to the endpoint.
        base_url: The endpoint (``None``: OpenAI's); any OpenAI-compatible server works
            (vLLM, Ollama, llama.cpp's server, hosted providers).
        api_key_env: Environment variable holding the key. Without ``base_url`` the key
            is required; with one, a missing key is sent as ``"none"`` (local servers).
        temperature: Sampling temperature (MECHANICS §16: 0.4).
        max_tokens: Most output tokens per reply (MECHANICS §16: 4,000).
        policy: Retries, backoff and the per-attempt time-out.

    Raises:
        ValueError: The ``openai`` package is missing or the key is needed and unset.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = defaults.TEMPERATURE,
        max_tokens: int = defaults.MAX_TOKENS,
        policy: RetryPolicy | None = None,
        options: RequestOptions | None = None,
        fixed_proxy: bool = False,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise ValueError(
                "the openai package is not installed; install the extra: pip install 'pibench[llm]'"
            ) from None
        key = os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise ValueError(f"no API key: set the environment variable {api_key_env} (or --api-key-env VAR)")
            key = "none"
        self.name = model
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.policy = policy or RetryPolicy()
        self.options = options or RequestOptions()
        self._openai = openai
        self._key = key
        #: What an endpoint's error text must not carry to the disk or the screen (:func:`scrub`).
        self._secrets = known_secrets(base_url, key, self.options)
        #: ``fixed_proxy`` (a sealed run): the proxy :func:`environment_proxy` names, checked
        #: before the run, is the one the client uses (``None``: none), whatever else the
        #: HTTP library would read from the environment.
        self.fixed_proxy = fixed_proxy
        self.proxy = environment_proxy(base_url or OPENAI_URL) if fixed_proxy else None
        #: The plan's shared limits of this endpoint (``None``: none); see :mod:`~pibench_tui.harness.limits`.
        self.limiter: EndpointLimiter | None = None
        self.client = self._new_client()

    def _new_client(self) -> Any:
        # The client's own time-out applies to each network operation (connect, each read);
        # :meth:`_attempt` bounds the whole attempt.
        base_url, query = split_query(self.base_url)
        return self._openai.OpenAI(
            api_key=self._key,
            base_url=base_url,
            default_query=query or None,
            timeout=self.policy.timeout,
            max_retries=0,
            default_headers=dict(self.options.headers) or None,
            **({"http_client": self._fixed_proxy_client()} if self.fixed_proxy else {}),
        )

    def _fixed_proxy_client(self) -> Any:
        """The client's HTTP client with its proxy given, not read from the environment: an
        explicit transport (through ``self.proxy``, or direct) turns the library's own
        proxy variables off and keeps the rest of what it reads there (certificates)."""
        base = self._openai.DefaultHttpxClient
        library = sys.modules[next(c for c in base.__mro__ if c.__name__ == "Client").__module__.split(".")[0]]
        proxy = self.proxy[1] if self.proxy is not None else None
        try:
            transport = library.HTTPTransport(proxy=proxy)
        except (ImportError, ValueError) as exc:  # a SOCKS proxy without its package, a bad URL
            assert self.proxy is not None
            raise ValueError(f"the proxy {self.proxy[0]}={self.proxy[1]}: {exc}") from None
        return base(transport=transport)

    def describe(self) -> dict[str, Any]:
        """Backend settings (no key; the base URL's credentials redacted: :func:`redact_url`)."""
        return {
            "backend": "openai",
            "model": self.model,
            "base_url": redact_url(self.base_url),
            "api_key_env": self.api_key_env,
            "temperature": self.options.sent_temperature(self.temperature),
            "max_tokens": self.max_tokens,
            "retries": self.policy.retries,
            **({"request": self.options.describe()} if self.options.describe() else {}),
        }

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """One chat completion, retried per the policy (see the module docstring). An
        attempt's error text has the backend's secrets scrubbed (:func:`scrub`): an
        endpoint may echo its URL, key or a header back, and errors are recorded and shown."""
        return _with_retries(
            lambda: self._scrubbed(messages), self.policy, limiter=self.limiter, estimate=estimate_tokens(messages)
        )

    def _scrubbed(self, messages: list[dict[str, str]]) -> Completion:
        try:
            return self._attempt(messages)
        except _Attempt as exc:
            exc.message = scrub(exc.message, self._secrets)
            raise

    def _attempt(self, messages: list[dict[str, str]]) -> Completion:
        """One attempt, bounded by ``policy.timeout`` seconds of wall clock as a whole.

        The client's time-out bounds each read, not the answer: an endpoint that sends a
        byte now and then (a stalled gateway's keep-alives) kept one attempt going as long
        as it liked. So the request runs in a daemon thread, and an attempt not answered in
        time is abandoned as a ``timeout`` (retried); its connection stays with that thread
        (which ends when the endpoint stops or a read times out; its client is closed then),
        and the next attempt uses a fresh client.
        """
        client = self.client
        result: list[Completion | BaseException] = []
        finished = threading.Event()
        abandoned = threading.Event()

        def run() -> None:
            try:
                result.append(self._request(client, messages))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                result.append(exc)
            finally:
                finished.set()
                if abandoned.is_set():
                    client.close()

        threading.Thread(target=run, name="pibench-llm-request", daemon=True).start()
        if not finished.wait(self.policy.timeout):
            abandoned.set()
            self.client = self._new_client()
            raise _Attempt(
                "timeout", f"no complete answer within {self.policy.timeout:g} s (the request time-out)", True
            )
        if isinstance(result[0], BaseException):
            raise result[0]
        return result[0]

    def _request(self, client: Any, messages: list[dict[str, str]]) -> Completion:
        """The request of one attempt through ``client`` (raises :class:`_Attempt`)."""
        oa = self._openai
        try:
            resp = client.chat.completions.create(
                model=self.model,
                messages=messages,
                **self.options.body(self.temperature, self.max_tokens),
                extra_body=dict(self.options.extra_body) or None,
            )
        except oa.RateLimitError as exc:
            raise _Attempt("rate_limit", str(exc), True, 429, _retry_after(exc)) from None
        except oa.APITimeoutError as exc:
            raise _Attempt("timeout", str(exc) or "request timed out", True) from None
        except oa.APIConnectionError as exc:
            raise _Attempt("connection", str(exc) or "connection failed", True) from None
        except oa.APIStatusError as exc:
            raise _status_attempt(exc) from None
        # An unreadable 200 answer is retried: it is what a proxy or gateway in trouble sends
        # (an HTML error page, a cut body), and one such answer should not cost the month.
        except oa.APIError as exc:  # an answer the client could not read
            raise _Attempt("bad_response", str(exc), True) from None
        # Garbage the client choked on: a ValueError of its JSON decoder, and whatever else an
        # answer can make it raise (a body of 100,000 nested ``[`` raised RecursionError, which
        # ended the career): an answer the client cannot read is never the career's end.
        except Exception as exc:  # noqa: BLE001 - see above
            raise _Attempt("bad_response", f"{type(exc).__name__}: {exc}", True) from None
        return _completion(resp)


def _status_attempt(exc: Exception) -> _Attempt:
    """The failed attempt an HTTP error status makes: a server error (5xx, 408, 409) is
    retried; a refused request parameter, an auth failure (401, 403) or another bad request is not."""
    status = int(getattr(exc, "status_code", 0) or 0)
    if status >= 500 or status in (408, 409):
        return _Attempt("server_error", str(exc), True, status, _retry_after(exc))
    param = parameter_error(status, exc)
    if param is not None:
        return _Attempt(
            "bad_parameter",
            f"the endpoint refused the request parameter {param!r} (HTTP {status}): {exc}; see "
            "--max-completion-tokens, --no-temperature, --reasoning-effort and --extra-body",
            False,
            status,
        )
    kind = "auth" if status in (401, 403) else "bad_request"
    return _Attempt(kind, str(exc), False, status)


def _completion(resp: Any) -> Completion:
    """The reply of a chat-completions answer with what it reports (tokens, finish reason, model
    and request ids); an answer without a message, or one too strange to read (its reading
    raised anything), is a failed attempt, retried (:class:`_Attempt`)."""
    try:
        return _read_completion(resp)
    except Exception as exc:  # noqa: BLE001 - a completion too strange to read (see _request)
        raise _Attempt(
            "bad_response", f"the answer has no readable message: {type(exc).__name__}: {exc}", True
        ) from None


#: Types of a content part whose ``text`` is the reply (``reasoning`` / ``thinking`` parts are not).
_TEXT_PARTS = ("text", "output_text")


def content_text(content: Any) -> str:
    """A message's ``content`` as the reply text: a string as it is; a list of parts (some
    providers and gateways send ``[{"type": "text", "text": "..."}, ...]``) as the ``text`` of
    its text parts (:data:`_TEXT_PARTS`, or a part with a string ``text`` and no type) joined
    in order, other parts (reasoning, images) left out; ``None`` as ``""``; anything else as
    ``str(content)``. Before, a list was read as its Python repr: no code block was found and
    the model was nudged 8 times a month."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else getattr(part, "type", None)
            text = part.get("text") if isinstance(part, dict) else getattr(part, "text", None)
            if isinstance(text, str) and (kind is None or kind in _TEXT_PARTS):
                texts.append(text)
        return "".join(texts)
    return str(content)


def _read_completion(resp: Any) -> Completion:
    """:func:`_completion`'s reading (raises on an answer without a message)."""
    choice = resp.choices[0]
    text = content_text(choice.message.content)
    finish = getattr(choice, "finish_reason", None)
    finish = finish if isinstance(finish, str) else None
    usage = getattr(resp, "usage", None)
    model_id, request_id = getattr(resp, "model", None), getattr(resp, "id", None)
    return Completion(
        text=str(text),
        prompt_tokens=_int_or_none(getattr(usage, "prompt_tokens", None)),
        completion_tokens=_int_or_none(getattr(usage, "completion_tokens", None)),
        finish_reason=finish,
        model_id=clean(model_id)[:200] if isinstance(model_id, str) and model_id else None,
        request_id=clean(request_id)[:200] if isinstance(request_id, str) and request_id else None,
        reasoning_tokens=_int_or_none(
            getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None)
        ),
        cached_tokens=_int_or_none(getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)),
    )


OPENAI_URL = "https://api.openai.com/v1"
"""Where the openai client sends requests without ``--base-url``."""


def environment_proxy(url: str) -> tuple[str, str] | None:
    """The proxy the environment names for a request to ``url``: ``(variable, proxy URL)``,
    or ``None`` (no proxy, or ``NO_PROXY`` excludes ``url``'s host).

    Read as Python's ``urllib.request`` reads it: ``HTTP_PROXY`` / ``HTTPS_PROXY`` by
    ``url``'s scheme, else ``ALL_PROXY``, in any case (the lower-case variable wins);
    ``NO_PROXY`` names hosts and domains (``example.com`` also excludes its subdomains; ``*``
    every host). A proxy without a scheme is ``http://``. A sealed run checks this proxy as it
    checks ``--base-url`` and gives the client exactly this proxy
    (``OpenAIBackend(fixed_proxy=True)``), so what was checked is what is used."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    for key in (parts.scheme.lower(), "all"):
        value = proxies.get(key)
        if value:
            break
    else:
        return None
    host = parts.hostname or ""
    if proxies.get("no") and urllib.request.proxy_bypass_environment(host, proxies):  # type: ignore[attr-defined]
        return None
    return f"{key.upper()}_PROXY", value if "://" in value else f"http://{value}"


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


MAX_REPLY_TOKENS = 10**9
"""Most tokens one count of one reply may report (prompt, completion, cached or reasoning):
a million times a long reply, a hundred times the largest context windows. A larger count is
no count (``None``), as a negative one is: a backend's ``completion_tokens`` of 10**22 made a
career's tokens 1.2e23 in result.json and the report."""


def _int_or_none(value: Any) -> int | None:
    """A token count the endpoint or command reported, or ``None`` when it is not one: a
    finite number from 0 to :data:`MAX_REPLY_TOKENS` (a string, a bool, a negative, NaN,
    infinite or larger count is not: ``-5`` made a career's tokens negative in result.json
    and the report, 10**22 made them 1.2e23; a 400-digit integer made ``math.isfinite`` raise
    ``OverflowError`` and ended ``pibench agent`` with a traceback)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return int(value) if 0 <= value <= MAX_REPLY_TOKENS else None


MAX_REPLY_BYTES = 64 << 20
"""Most bytes a ``--command`` may print as one reply (a reply of --max-tokens 4,000 is tens of
kB): a command printing without end is stopped there instead of filling the memory."""

_STDERR_TAIL = 64 << 10
"""Bytes of a command's stderr kept (its end, for the failure message)."""


_LIVE: set[subprocess.Popen[bytes]] = set()
"""The ``--command`` processes running now (their groups are killed at exit)."""
_LIVE_LOCK = threading.Lock()


def _wait_unreaped(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``proc`` to exit, without reaping it: until it is
    reaped its pid, which is also its process group's id, cannot name another process, so
    :func:`_end_group` can kill the group safely. ``True`` when it exited."""
    if not hasattr(os, "waitid"):  # pragma: no cover - not Linux
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # reaped already
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining, 0.05))
        delay *= 2


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s process group (it leads one: ``start_new_session``), then reap it."""
    if proc.returncode is None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, 9)  # SIGKILL (a number: not every platform names it)
        proc.wait()


def _end_live_commands() -> None:
    """At pibench's exit: kill every ``--command`` process group still running (a career
    thread left in a request). ``kill -9`` of pibench skips this; the kernel's parent-death
    signal still ends each command itself."""
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for proc in procs:
        if proc.returncode is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, 9)


atexit.register(_end_live_commands)


def _dies_with_pibench() -> Callable[[], None] | None:
    """The ``preexec_fn`` of a ``--command`` process: in the child, before ``exec`` and after
    the change of user (which would clear it), ask the kernel for ``SIGTERM`` when its parent
    ends (``PR_SET_PDEATHSIG``; :data:`COMMAND_GUARD` then kills its process group), and exit
    at once if pibench ended before that. ``None``
    where there is no ``prctl`` (not Linux). libc's ``prctl`` is looked up here, in the
    parent: the child only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - no libc
        return None
    prctl.restype = ctypes.c_int
    parent = os.getpid()

    def child() -> None:
        prctl(1, 15, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGTERM (the guard's trap)
        if os.getppid() != parent:
            os._exit(127)

    return child


#: The shell a ``--command`` runs under (``/bin/sh -c GUARD pibench-command COMMAND...``): on
#: ``SIGTERM`` it kills its whole process group, itself included, and the kernel sends it
#: ``SIGTERM`` when pibench ends (:func:`_dies_with_pibench`). A parent-death signal reaches only
#: a direct child; through the guard, what the command started dies with pibench too
#: (``kill -9`` of pibench included). The command keeps the standard input (through descriptor
#: 3: an asynchronous command's would be ``/dev/null``), gets no ``PWD`` the shell would add,
#: and its exit status is the guard's.
COMMAND_GUARD = 'unset PWD; trap "kill -s KILL 0" TERM; exec 3<&0; "$@" <&3 3<&- & exec 3<&-; wait $!; exit $?'


def guarded_argv(argv: list[str]) -> list[str]:
    """``argv`` run under :data:`COMMAND_GUARD`."""
    return ["/bin/sh", "-c", COMMAND_GUARD, "pibench-command", *argv]


#: What a ``--command`` backend run as another user keeps of pibench's environment (and
#: every ``LC_*``); see :func:`command_environment`.
COMMAND_ENV_KEPT = ("PATH", "LANG", "LANGUAGE", "TZ")


def command_environment(uid: int) -> dict[str, str]:
    """The environment of a ``--command`` backend run as the user ``uid``: pibench's
    ``PATH``, ``LANG``, ``LANGUAGE``, ``TZ`` and ``LC_*`` only, with that user's ``HOME``,
    ``USER`` and ``LOGNAME`` (``HOME=/`` for a uid without an entry). Nothing else of
    pibench's environment (its ``HOME``, API keys, tokens) reaches it."""
    import pwd

    env = {k: v for k, v in os.environ.items() if k in COMMAND_ENV_KEPT or k.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    try:
        entry = pwd.getpwuid(uid)
    except KeyError:
        env["HOME"] = "/"
    else:
        env.update(HOME=entry.pw_dir, USER=entry.pw_name, LOGNAME=entry.pw_name)
    return env


class CommandBackend:
    """Replies from a local executable: the request as JSON on its stdin, the reply on stdout.

    The request is ``{"model", "messages", "temperature", "max_tokens"}``. The command
    prints the reply as plain text, or a JSON object ``{"content": str, "usage":
    {"prompt_tokens", "completion_tokens"}}`` to report tokens (``content`` may also be a
    list of text parts: :func:`content_text`). A non-zero exit status or
    a time-out is a failed attempt (retried like a server error).

    Args:
        command: The command line (split like a shell would, no shell involved).
        model: The name recorded for the runs.
        temperature / max_tokens: Passed on in the request.
        policy: Retries, backoff and the per-attempt time-out.
        user: ``(uid, gid)`` the command runs as (no supplementary groups, from ``/``, with
            :func:`command_environment`; pibench must be root), so that it cannot read what
            pibench's user can: a sealed evaluation requires it (``--command-user``);
            ``None``: pibench's own user (and its whole environment).

    Raises:
        ValueError: An empty or unparsable command line, or a program that is neither on
            ``PATH`` nor an executable file.
    """

    def __init__(
        self,
        command: str,
        *,
        model: str = "command",
        temperature: float = defaults.TEMPERATURE,
        max_tokens: int = defaults.MAX_TOKENS,
        policy: RetryPolicy | None = None,
        options: RequestOptions | None = None,
        user: tuple[int, int] | None = None,
    ) -> None:
        self.user = user
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"--command: cannot split {command!r}: {exc}") from None
        if not argv:
            raise ValueError("--command: empty command")
        if shutil.which(argv[0]) is None:  # a typo: refuse now, not after a career without a model
            raise ValueError(
                f"--command: cannot run {argv[0]!r}: no such executable (give a program on PATH or the "
                "path of an executable file)"
            )
        self.argv = argv
        self.command = command
        self.name = model
        self.model = model
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.policy = policy or RetryPolicy()
        self.options = options or RequestOptions()
        #: The plan's shared limits of this command (``None``: none); see :mod:`~pibench_tui.harness.limits`.
        self.limiter: EndpointLimiter | None = None

    def describe(self) -> dict[str, Any]:
        """Backend settings."""
        return {
            "backend": "command",
            "model": self.model,
            "command": redact_command(self.command),
            **({"user": self.user[0]} if self.user else {}),
            "temperature": self.options.sent_temperature(self.temperature),
            "max_tokens": self.max_tokens,
            "retries": self.policy.retries,
            **({"request": self.options.describe()} if self.options.describe() else {}),
        }

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Run the command once per attempt (see the class docstring)."""
        return _with_retries(
            lambda: self._attempt(messages), self.policy, limiter=self.limiter, estimate=estimate_tokens(messages)
        )

    def _run(self, request: bytes) -> tuple[int, bytes, bytes]:
        """Run the command once: ``(exit status, stdout, the end of stderr)``. Its output is
        read as it comes and bounded (stdout :data:`MAX_REPLY_BYTES`, stderr's last
        :data:`_STDERR_TAIL` bytes kept), the whole run by ``policy.timeout``; a command over
        either is killed (raises :class:`_Attempt`).

        The command runs in a session and process group of its own, under
        :data:`COMMAND_GUARD`, which kills the group when pibench ends (a parent-death signal,
        set after the change of user), ``kill -9`` included; when the attempt ends (answered,
        failed, timed out, interrupted) every process left in its group is killed. As another user
        (``user``) it gets :func:`command_environment`, not pibench's."""
        try:
            as_user: dict[str, Any] = (
                {
                    "user": self.user[0],
                    "group": self.user[1],
                    "extra_groups": [],
                    "cwd": "/",
                    "env": command_environment(self.user[0]),
                }
                if self.user
                else {}
            )
            proc = subprocess.Popen(
                guarded_argv(self.argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # a process group of its own: ended with the attempt
                preexec_fn=_dies_with_pibench(),
                **as_user,
            )
        except OSError as exc:
            raise _Attempt("command_failed", f"cannot run {self.argv[0]!r}: {exc}", False) from None
        with _LIVE_LOCK:
            _LIVE.add(proc)
        try:
            return self._collect(proc, request)
        finally:
            _end_group(proc)
            with _LIVE_LOCK:
                _LIVE.discard(proc)

    def _collect(self, proc: subprocess.Popen[bytes], request: bytes) -> tuple[int, bytes, bytes]:
        """Feed ``proc`` the ``request`` and read its answer (see :meth:`_run`)."""
        limit = MAX_REPLY_BYTES
        out: list[bytes] = []
        err = bytearray()
        flooded = threading.Event()

        def read_out() -> None:
            total = 0
            while chunk := proc.stdout.read1(1 << 16):  # type: ignore[union-attr]
                total += len(chunk)
                if total > limit:
                    flooded.set()
                    with contextlib.suppress(OSError):  # not reaped yet: the group is still its own
                        os.killpg(proc.pid, 9)
                    return
                out.append(chunk)

        def read_err() -> None:
            while chunk := proc.stderr.read1(1 << 16):  # type: ignore[union-attr]
                err.extend(chunk)
                del err[:-_STDERR_TAIL]

        def feed() -> None:
            with contextlib.suppress(OSError):  # a command that reads nothing closes early
                proc.stdin.write(request)  # type: ignore[union-attr]
                proc.stdin.close()  # type: ignore[union-attr]

        readers = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err, feed)]
        for t in readers:
            t.start()
        try:
            if not _wait_unreaped(proc, self.policy.timeout):
                raise _Attempt("timeout", f"the command gave no reply within {self.policy.timeout:g} s", True)
        finally:
            _end_group(proc)  # what it left running (or all of it, at a time-out) ends with the attempt
            for t in readers:  # a process outside its group may keep a pipe open: do not wait for it long
                t.join(1.0)
            for pipe in (proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    pipe.close()  # type: ignore[union-attr]
        if flooded.is_set():
            raise _Attempt(
                "bad_response", f"the command printed more than {limit:,} bytes (the reply limit) and was stopped", True
            )
        return proc.returncode, b"".join(out), bytes(err)

    def _attempt(self, messages: list[dict[str, str]]) -> Completion:
        request = json.dumps(
            {
                "model": self.model,
                "messages": messages,
                **self.options.body(self.temperature, self.max_tokens),
                **self.options.extra_body,
            },
            ensure_ascii=False,
        )
        returncode, stdout, stderr = self._run(request.encode("utf-8"))
        if returncode != 0:
            err = stderr.decode("utf-8", "replace").strip()[-400:]
            raise _Attempt("command_failed", f"the command exited with status {returncode}: {err}", True)
        out = stdout.decode("utf-8", "replace")
        stripped = out.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except ValueError:
                data = None  # not JSON: a plain-text reply that starts with "{"
            except RecursionError:  # 100,000 nested "[" ended the career before
                raise _Attempt("bad_response", "the command's JSON reply is nested too deeply to read", True) from None
            if isinstance(data, dict) and isinstance(data.get("content"), (str, list)):
                raw = data.get("usage")
                usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
                return Completion(
                    text=content_text(data["content"]),
                    prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
                    completion_tokens=_int_or_none(usage.get("completion_tokens")),
                    finish_reason=data.get("finish_reason") if isinstance(data.get("finish_reason"), str) else None,
                )
        return Completion(text=out)
