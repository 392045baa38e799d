"""Pivot evaluation runs in ``pibench report`` (PIVOTS.md "Report"; issue 24 part 5).

``pibench report`` reads pivot runs (``pibench pivots eval`` and ``pibench play --pivots``
run directories) beside career runs: one row per run with accuracy and both 95 % intervals,
accuracy per kind and per capability, regret, tokens and cost per case. Every number is
re-scored here from the run's answers and the case set's key (the same code as ``pibench
pivots score``, :func:`pibench_tui.pivots.evaluate.load_run`): every choice is re-derived from
the recorded reply (a scripted judge's reply by playing the judge again), in the order its
recorded conversation digest binds, never read from the stored ``answer`` field; token counts
are re-derived from the texts, the provider's shown apart as reported
(:func:`pibench_tui.pivots.score.check_answers`: a record that disagrees is counted wrong and
named in the notes); a run whose key is not available (a sealed set) or whose files are
damaged is listed as unscored with the reason. Two different runs claiming one row (label,
condition and case set) conflict, as careers do: neither is scored and a note names both
folders; the same run read twice counts once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pibench_tui.textsafe import html_text
from pibench_tui.words import count

from ..pivots.cases import KINDS, PivotFileError
from ..pivots.evaluate import EVAL_FORMAT, PivotRun, load_run, sort_out_runs
from ..pivots.score import integrity_lines, score_run

__all__ = [
    "career_paths",
    "find_pivot_runs",
    "is_pivot_run",
    "kind_table",
    "pivot_html",
    "pivot_page",
    "pivot_section",
    "pivot_table",
    "pivots_figure",
    "print_pivots",
]


def is_pivot_run(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a pivot evaluation run directory (its ``run.json`` says so)."""
    meta = Path(path) / "run.json"
    if not meta.is_file():
        return False
    try:
        import json

        with open(meta, encoding="utf-8") as fh:
            data = json.loads(fh.read(1_000_000))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == EVAL_FORMAT


def find_pivot_runs(paths: list[str]) -> list[Path]:
    """Pivot run directories at or below ``paths`` (sorted; none inside another)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir() and is_pivot_run(p):
            out.append(p)
            continue
        if p.is_dir():
            for dirpath, dirnames, _files in os.walk(p):
                dirnames.sort()
                if is_pivot_run(dirpath):
                    out.append(Path(dirpath))
                    dirnames[:] = []
    return sorted(set(out))


def career_paths(paths: list[str]) -> list[str]:
    """The paths that hold careers: files, and folders with a career run below them (a
    folder of pivot runs alone is left to the pivot section)."""
    from ..harness.rundir import iter_run_dirs

    out = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir():
            out.append(raw)
        elif not is_pivot_run(p) and any((d / "result.json").is_file() for d in iter_run_dirs(p)):
            out.append(raw)
    return out


def _cost(counts: list[int], price: tuple[float, ...] | None) -> float | None:
    """USD of ``[prompt, completion]`` tokens at ``price`` (USD per million, prompt and
    completion), or ``None`` without a price."""
    if price is None:
        return None
    return (counts[0] * price[0] + counts[1] * price[1]) / 1e6


def _head(run: Path) -> dict[str, Any]:
    """The row's names from ``run.json`` (bounded, like every run file read)."""
    from ..harness.rundir import read_json

    try:
        meta = read_json(run / "run.json")
    except (OSError, ValueError):
        meta = {}
    meta = meta if isinstance(meta, dict) else {}
    return {"run": str(run), "label": str(meta.get("label")), "condition": meta.get("condition"),
            "model": meta.get("model")}  # fmt: skip


def _row(pr: PivotRun, prices: dict[str, tuple[float, ...]]) -> dict[str, Any]:
    meta = pr.meta
    label = str(meta.get("label"))
    row: dict[str, Any] = {"run": str(pr.path), "label": label, "condition": meta.get("condition"),
                           "model": meta.get("model")}  # fmt: skip
    scored = score_run(pr.cases, pr.key, pr.answers, pr.sessions_per_case, pr.condition, pr.reference_reply())
    counts = scored["token_counts"]
    price = prices.get(label) or prices.get(str(meta.get("model")))
    cost = _cost(counts["provider"] or counts["derived"], price)
    row.update(
        overall=scored["overall"],
        integrity=scored["integrity"],
        by_kind={k: v["accuracy"] for k, v in scored["by_kind"].items()},
        by_capability={k: v["accuracy"] for k, v in scored["by_capability"].items()},
        cost_per_case=None if cost is None else cost / max(1, len(pr.cases)),
        cost_from="provider" if counts["provider"] is not None else "derived",
        cases=pr.case_set,
        key_sha256=pr.key_sha256,
    )
    return row


def pivot_section(runs: list[Path], prices: dict[str, tuple[float, ...]] | None = None) -> dict[str, Any]:
    """Rows of the report's pivot section: one per run, re-scored from its answers and key.

    Returns:
        ``{"rows": [{"run", "label", "condition", "overall", "integrity", "by_kind",
        "by_capability", "cost_per_case"} or {..., "error"}], "kinds": [...], "notes": [...]}``;
        ``notes`` say which runs were read twice, which conflict, and which hold invalid
        records (:func:`~pibench_tui.pivots.score.integrity_lines`).
    """
    loaded: list[PivotRun] = []
    rows: list[dict[str, Any]] = []
    for run in runs:
        try:
            loaded.append(load_run(run))
        except PivotFileError as exc:
            rows.append({**_head(run), "error": f"not scored: {exc}"})
    kept, notes, conflicts = sort_out_runs(loaded)
    for pr in kept:
        if pr.path in conflicts:
            rows.append({**_head(pr.path), "error": f"not scored: {conflicts[pr.path]}"})
            continue
        row = _row(pr, prices or {})
        notes += [f"{pr.path}: {line}" for line in integrity_lines(row["integrity"])[1:]]
        rows.append(row)
    notes += sorted(set(conflicts.values()))
    rows.sort(key=lambda r: (-(r.get("overall") or {}).get("accuracy", -1.0), r["label"], str(r["condition"])))
    return {"rows": rows, "kinds": [k for k in KINDS if any(k in r.get("by_kind", {}) for r in rows)], "notes": notes}


#: What the token and cost columns are, for the terminal and the HTML page.
TOKENS_NOTE = (
    "tokens/case: re-derived here from the texts (the conversation re-built from the case, order and "
    "condition, and the recorded replies; characters / 4). reported tokens/case: what the provider reported, "
    "copied from the records: reported by the provider, not re-derived (— when a session has no such count). "
    "cost/case: from the reported counts when every session has them, else from the re-derived ones (marked ~)."
)


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def pivot_table(section: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the pivot leaderboard (text cells; one row per run)."""
    head = ["label", "condition", "cases", "accuracy", "95% CI cases", "95% CI careers", "regret"]
    head += ["answered", "missing", "invalid", "tokens/case", "reported tokens/case", "cost/case"]
    rows = []
    for r in section["rows"]:
        if "error" in r:
            rows.append([r["label"], str(r["condition"]), "", r["error"], *[""] * (len(head) - 4)])
            continue
        o = r["overall"]
        cost = r.get("cost_per_case")
        rows.append(
            [
                r["label"],
                str(r["condition"]),
                str(o["cases"]),
                f"{o['accuracy']:.3f}",
                _ci(o["ci_cases"]),
                _ci(o["ci_careers"]),
                f"{o['regret']:.1f}",
                f"{r['integrity']['answered']}/{r['integrity']['sessions']}",
                str(o["missing"]),
                str(o["invalid"]),
                f"~{o['tokens_per_case']:,.0f}",
                "—" if o.get("provider_tokens_per_case") is None else f"{o['provider_tokens_per_case']:,.0f}",
                "" if cost is None else f"${cost:.4f}" + ("" if r.get("cost_from") == "provider" else " ~"),
            ]
        )
    return head, rows


def kind_table(section: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Accuracy per decision kind: one row per scored run, one column per kind."""
    kinds = section["kinds"]
    rows = [
        [f"{r['label']} · {r['condition']}", *[f"{r['by_kind'][k]:.2f}" if k in r["by_kind"] else "" for k in kinds]]
        for r in section["rows"]
        if "error" not in r
    ]
    return ["run", *kinds], rows


def pivots_figure(section: dict[str, Any]) -> bytes | None:
    """Grouped bars: accuracy per kind for each run (PNG), or ``None`` without scored runs."""
    rows = [r for r in section["rows"] if "error" not in r]
    kinds = section["kinds"]
    if not rows or not kinds:
        return None
    from .figures import _plt, _png

    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(kinds) + 2), 3.6))
    width = 0.8 / len(rows)
    for i, r in enumerate(rows):
        xs = [j + i * width for j in range(len(kinds))]
        ax.bar(xs, [r["by_kind"].get(k, 0.0) for k in kinds], width, label=f"{r['label']} ({r['condition']})")
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(kinds))])
    ax.set_xticklabels(kinds)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy")
    ax.set_title("Pivot accuracy per decision kind (dashed: chance)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig)


def pivot_html(section: dict[str, Any], figure: bytes | None) -> str:
    """The pivot section of the HTML page (escaped; the figure embedded): the tables, what
    the columns mean, the section's notes (runs read twice, conflicting runs, invalid
    records), then the figure."""
    import base64

    out = ["<h2>Pivot cases</h2>"]
    for head, rows in (pivot_table(section), kind_table(section)):
        out.append("<table><tr>" + "".join(f"<th>{html_text(h)}</th>" for h in head) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows]
        out.append("</table>")
    out.append(
        '<p class="note">Accuracy: share of cases where the better plan (by the simulated futures) was chosen, '
        "both plan orders averaged per case (one session per case for a person). CI cases / careers: 95% "
        "bootstrap intervals resampling cases, and careers with all their cases. Regret: Impact lost by wrong "
        "choices per case (citations). Answered: sessions with a valid answer, re-derived from the recorded "
        "reply; missing: sessions with no answer; invalid: sessions whose stored answer disagrees with the "
        "reply, whose reply is not the one the run's scripted judge gives, whose record does not carry the "
        "digest of the conversation its case, order and condition give, or that were recorded twice differently. All three count wrong. "
        + html_text(TOKENS_NOTE)
        + "</p>"
    )
    notes = section.get("notes") or []
    if notes:
        out.append('<ul class="note">' + "".join(f"<li>{html_text(n)}</li>" for n in notes) + "</ul>")
    if figure:
        data = base64.b64encode(figure).decode("ascii")
        out.append(f'<img alt="Pivot accuracy per kind" src="data:image/png;base64,{data}">')
    return "\n".join(out)


def print_pivots(section: dict[str, Any], console: Any = None) -> None:
    """The pivot table in the terminal (rich; cells as plain text, never markup)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from pibench_tui.textsafe import rich_text

    con = console or Console()
    if console is None and not con.is_terminal:  # a pipe or a file: wide enough that no column folds
        con = Console(width=160)
    for title, (head, rows) in (
        (f"Pivot cases ({count(len(section['rows']), 'run')})", pivot_table(section)),
        ("Pivot accuracy per decision kind", kind_table(section)),
    ):
        caption = Text(TOKENS_NOTE) if head[-1] == "cost/case" and rows else None
        t = Table(title=Text(title), title_justify="left", title_style="bold", caption=caption, caption_justify="left")
        for i, h in enumerate(head):
            t.add_column(Text(h), justify="left" if i < 2 else "right", overflow="fold")
        for row in rows:
            t.add_row(*(rich_text(c, newlines=True) for c in row))  # labels and paths: escapes shown, never run
        con.print(t)


def pivot_page(section: dict[str, Any]) -> str:
    """A self-contained HTML page of the pivot section alone."""
    try:
        figure = pivots_figure(section)
    except ImportError:  # matplotlib is the report extra's
        figure = None
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pibench report: pivot cases</title>'
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "table{margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}.note{color:#555;max-width:60em}</style>"
        "</head><body><h1>pibench report</h1>\n" + pivot_html(section, figure) + "\n</body></html>\n"
    )
