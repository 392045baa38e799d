"""JSON-lines mode: one ``{"code": "..."}`` request per line, exactly one reply line each,
then an ``end`` event carrying the report."""

from __future__ import annotations

import json
from typing import IO, Any

from pibench_tui.headless.limits import MAX_JSONL_LINE, read_bounded_lines
from pibench_tui.headless.session import HeadlessSession
from pibench_tui.sandbox import BlockResult
from world.report import pi_view


def jsonl_reply(
    session: HeadlessSession, result: BlockResult | None, error: dict | None = None, report: Any = None
) -> dict:
    """Build one JSON-lines reply: ``{"ok", "stdout", "error", "truncated", "month", "done",
    "impact", "month_report"}``; ``month_report`` is the month report (``time.last_report()``'s dict) of the
    last month the block closed, or ``None`` when the block did not advance the month."""
    status = session.status()
    if result is None:
        return {
            "ok": False,
            "stdout": "",
            "error": error,
            "truncated": False,
            "month": status["month"],
            "done": status["done"],
            "impact": status["impact"],
            "month_report": None,
        }
    return {
        "ok": result.ok,
        "stdout": result.stdout,
        "error": result.error,
        "truncated": result.truncated,
        "month": status["month"],
        "done": status["done"],
        "impact": status["impact"],
        "month_report": pi_view(report.to_dict()) if report is not None else None,
    }


def run_jsonl(session: HeadlessSession, stdin: IO[str], stdout: IO[str]) -> int:
    """JSON-lines mode: each line ``{"code": "..."}`` gets exactly one reply line.

    The first reply also carries ``confinement``
    (:meth:`pibench_tui.sandbox.Confinement.to_dict`: how the OS confines the agent process);
    the ``end`` event's report carries it too. Blank lines are ignored. A line that is not a JSON object with a string ``code`` gets
    an ``ok: false`` reply with error type ``ProtocolError``; the session goes on.

    Args:
        session: The career.
        stdin: Request lines.
        stdout: Reply lines (ASCII JSON, one per request).

    Returns:
        The exit status (0).
    """
    lineno = 0
    first = True
    for line in read_bounded_lines(stdin, MAX_JSONL_LINE):
        lineno += 1
        if line is not None and not line.strip():
            continue
        reply = None
        if line is None:
            reply = jsonl_reply(
                session, None, _protocol_error(f"line {lineno} is longer than {MAX_JSONL_LINE:,} characters")
            )
        else:
            try:
                request = json.loads(line)
            except (ValueError, RecursionError) as exc:
                reply = jsonl_reply(session, None, _protocol_error(f"line {lineno} is not valid JSON: {exc}"))
            else:
                if not isinstance(request, dict) or not isinstance(request.get("code"), str):
                    reply = jsonl_reply(
                        session,
                        None,
                        _protocol_error(
                            f'line {lineno}: expected an object like {{"code": "..."}} with a string "code"'
                        ),
                    )
                else:
                    before = session.world.last_report
                    result = session.run_block(request["code"], filename=f"<block {session.blocks + 1}>")
                    after = session.world.last_report
                    reply = jsonl_reply(session, result, report=after if after is not before else None)
        if first:  # the first reply says how the agent process proved it is confined
            reply["confinement"] = session.confinement().to_dict()
            first = False
        stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        stdout.flush()
    saved = session.final_save()
    stdout.write(json.dumps(end_event(session, saved), ensure_ascii=True) + "\n")
    stdout.flush()
    return 0


def end_event(session: HeadlessSession, saved: str | None, interrupted: str | None = None) -> dict[str, Any]:
    """The last JSON line of a session: ``{"event": "end", "report": {...}}`` plus
    ``"saved"`` (``--save``) and, when SIGINT/SIGTERM ended it, ``"interrupted"`` (the
    signal's name)."""
    end: dict[str, Any] = {"event": "end", "report": session.report_data()}
    if saved:
        end["saved"] = saved
    if interrupted:
        end["interrupted"] = interrupted
    return end


def _protocol_error(message: str) -> dict:
    return {"type": "ProtocolError", "message": message, "line": None, "source": "pibench"}
