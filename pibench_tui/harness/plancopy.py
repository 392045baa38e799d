"""The copy of a plan file ``pibench agent --plan`` keeps in its output folder, without secrets.

A plan may hold what ``result.json`` never records: a key in a header, a password in a
``base_url``, a token in ``extra_body`` or on a ``command`` line, or in a comment. The copy
(``plan-<first 12 hex digits of its SHA-256>.toml``) is the file's own text when it holds
none; otherwise the plan's data written again as TOML with each secret replaced by
:data:`~pibench_tui.harness.backends.REDACTED` by the rules that keep them out of every
record (:func:`~pibench_tui.harness.backends.is_secret_header`,
:func:`~pibench_tui.harness.backends.redact_url`,
:func:`~pibench_tui.harness.backends.redact_secrets`,
:func:`~pibench_tui.harness.backends.redact_command`), its comments left out.
"""

from __future__ import annotations

from typing import Any

import tomli_w

from pibench_tui.harness.backends import (
    REDACTED,
    is_secret_header,
    looks_like_credential,
    redact_command,
    redact_secrets,
    redact_url,
)

__all__ = ["kept_plan_text", "redacted_plan"]


def redacted_plan(data: Any) -> Any:
    """A plan's parsed TOML with its secrets redacted, at any depth: the values of
    ``headers`` tables that may hold a secret, ``base_url`` credentials and secret query
    values, ``extra_body`` secret fields and ``command`` lines' secret words."""
    if isinstance(data, list):
        return [redacted_plan(v) for v in data]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "headers" and isinstance(value, dict):
            out[key] = {n: REDACTED if is_secret_header(n, str(v)) else v for n, v in value.items()}
        elif key == "base_url" and isinstance(value, str):
            out[key] = redact_url(value)
        elif key == "extra_body":
            out[key] = redact_secrets(value)
        elif key == "command" and isinstance(value, str):
            out[key] = redact_command(value)
        else:
            out[key] = redacted_plan(value)
    return out


def kept_plan_text(text: str, data: dict[str, Any]) -> str:
    """The text of the plan's copy: ``text`` itself when its data holds no secret
    (:func:`redacted_plan`) and no comment looks like a credential; else the redacted data
    as TOML, under a comment saying so (the copy then reads back to the redacted data)."""
    kept = redacted_plan(data)
    comments = [line.split("#", 1)[1] for line in text.splitlines() if "#" in line]
    if kept == data and not any(looks_like_credential(c) for c in comments):
        return text
    return (
        "# A copy of the plan with its secrets replaced by <redacted> (header values, base_url\n"
        "# credentials, extra_body fields, command words) and its comments left out.\n" + tomli_w.dumps(kept)
    )
