"""``pibench saves list|show|delete|export|import``: the command functions.

For ``pibench_tui/cli/command.py`` (which owns the top-level parser), the contract is:

``add_saves_parser(subparsers) -> argparse.ArgumentParser``
    Adds the ``saves`` command and its five subcommands to an ``argparse`` subparsers
    object; each subcommand sets ``args.func`` to one of the functions below. Options:
    ``--saves DIR`` on ``saves`` and on every subcommand.

Each command is ``cmd_<verb>(args, out=sys.stdout, err=sys.stderr) -> int`` and reads only
these attributes of ``args`` (missing ones take the default shown):

=============  ==============================================================
``cmd_list``   ``saves`` (DIR or None), ``career`` (None), ``json`` (False)
``cmd_show``   ``saves``, ``name``, ``json`` (False)
``cmd_delete`` ``saves``, ``name``, ``yes`` (False: ask first)
``cmd_export`` ``saves``, ``name``, ``file`` (path or ``"-"``), ``force``, ``with_seed`` (False)
``cmd_import`` ``saves``, ``file``, ``as_name`` (None), ``force`` (False)
=============  ==============================================================

Return value = exit status: 0 ok, 1 error, 2 a usage error (a NAME no save has, a FILE that
is not there); a one-line message on ``err``, starting with ``error:``. Recovery warnings of the store (backup index used, ...) go to ``err`` too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from saves.errors import SaveError, SaveExistsError, SaveNotFoundError
from saves.records import SaveInfo, SaveRecord
from saves.store import SaveStore
from saves.verify import is_world_state
from scenarios import modified_scenario

__all__ = ["add_saves_parser", "cmd_delete", "cmd_export", "cmd_import", "cmd_list", "cmd_show"]


def _store(args: argparse.Namespace) -> SaveStore:
    # Warnings are collected and printed once by _flush_warnings (plain text, on ``err``).
    return SaveStore(getattr(args, "saves", None), on_warning=None)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} kB"
    return f"{n / 1024 / 1024:.1f} MB"


def _when(iso: str) -> str:
    return iso[:16].replace("T", " ") if iso else "-"


def _month(info: SaveInfo) -> str:
    return f"{info.month}/{info.months}" if info.months else str(info.month)


def _flush_warnings(store: SaveStore, err: TextIO) -> None:
    for message in store.warnings:
        print(message, file=err)
    store.warnings.clear()


def _fail(exc: Exception, store: SaveStore | None, err: TextIO) -> int:
    """Say ``exc``; the exit status: 2 for a name no save has (the command line is wrong),
    else 1 (a damaged save, a store that cannot be written ...)."""
    if store is not None:
        _flush_warnings(store, err)
    print(f"error: {exc}", file=err)
    return 2 if isinstance(exc, SaveNotFoundError) else 1


def _table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip(), file=out)


def cmd_list(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """List the saves of a store, oldest write first.

    Args:
        args: ``saves``, ``career``, ``json`` (see the module docstring).
        out: where the listing goes (default stdout).
        err: where warnings and errors go (default stderr).

    Returns:
        Exit status (0 ok, 1 error).
    """
    out, err = out or sys.stdout, err or sys.stderr
    store = None
    try:
        store = _store(args)
        every = store.list()
        career = getattr(args, "career", None)
        infos = [i for i in every if career is None or i.career == career]
        shadowed = store.shadowed(every)
    except SaveError as exc:
        return _fail(exc, store, err)
    _flush_warnings(store, err)
    if getattr(args, "json", False):
        dicts = [i.to_dict() for i in infos]
        for row in dicts:  # the save `--load NAME` and `saves show NAME` use instead of this one
            if row["name"] in shadowed:
                row["newer"] = shadowed[row["name"]].name
        json.dump(dicts, out, ensure_ascii=False, indent=1)
        print(file=out)
        return 0
    if not infos:
        print(f"No saves in {store.path}.", file=out)
        return 0
    rows = [["NAME", "KIND", "SCENARIO", "SEED", "MONTH", "STATUS", "UPDATED (UTC)", "SIZE"]]
    for i in infos:
        rows.append([i.name, i.kind, i.scenario, i.seed_text, _month(i), i.status, _when(i.updated), _size(i.size)])
    _table(rows, out)
    for i in infos:
        if i.name in shadowed:
            print(_shadowed_note(i, shadowed[i.name]), file=out)
    print(f"{len(infos)} save{'s' if len(infos) != 1 else ''} in {store.path}", file=out)
    return 0


def _shadowed_note(old: SaveInfo, newest: SaveInfo) -> str:
    """Says that the save ``old`` is older than ``newest``, the save its name resolves to
    (``SaveStore.shadowed``): what ``--load`` and ``saves show`` of that name use."""
    return (
        f"note: {old.name!r} (month {_month(old)}) is older than {newest.name!r} (month {_month(newest)}, "
        f"{newest.status}), the newest save of career {newest.career!r}: `--load {old.name}` and "
        f"`saves show {old.name}` use {newest.name!r}"
    )


def _state_facts(record: SaveRecord) -> dict[str, Any]:
    """Counts shown by ``show`` (action log length, memory notes length), if present."""
    inner = record.state.get("state", record.state) if isinstance(record.state, dict) else {}
    facts: dict[str, Any] = {}
    if isinstance(inner, dict):
        if isinstance(inner.get("action_log"), list):
            facts["actions recorded"] = len(inner["action_log"])
        if isinstance(inner.get("memory"), str):
            facts["memory notes"] = f"{len(inner['memory'])} characters"
    return facts


def _scenario_seed(name: str, scenario: dict[str, Any]) -> int | None:
    """The seed the scenario itself names: the bundled scenario of that name (when the save's
    configuration is that scenario's), else the first "seed N" of its description."""
    import re

    try:
        from scenarios import bundled_names, load_scenario

        if name in bundled_names():
            own = load_scenario(name)
            if own.config.to_dict() == scenario.get("config"):
                return int(own.seed)
    except Exception:  # a scenario file that changed or vanished: fall back to the text
        pass
    m = re.search(r"\bseed (\d+)", str(scenario.get("description") or ""), re.IGNORECASE)
    return int(m.group(1)) if m else None


def _without_seed_sentences(text: str) -> str:
    """The description minus the sentences that speak of a seed (they describe another one)."""
    import re

    kept = [t for t in re.split(r"(?<=[.;])\s+", text) if not re.search(r"\bseeds?\b", t, re.IGNORECASE)]
    return " ".join(kept).rstrip(";").strip() or "-"


def _verify_for_show(store: SaveStore, info: SaveInfo) -> tuple[SaveRecord | None, str, str, str | None]:
    """Load ``info``'s save and verify it whole (a world state is rebuilt and its action log
    replayed, whatever the store's seal says): ``(record, what was checked, digest, problem)``."""
    record = None
    checked = "ok"
    digest = info.digest
    try:
        record = store.load(info.name)
        if is_world_state(record.state):
            sealed = record.sealed
            record.sealed = False  # show always replays, whatever the store's seal says
            world = record.world()  # digest and replay of the action log
            if not info.digest:  # an autosave delta records none: the rebuilt world's
                digest = world.digest()
            checked = "ok (checksum, digest, replay of the action log" + (", store seal)" if sealed else ")")
        else:
            checked = "ok (checksum only: not a pibench world state, so not replayed)"
    except SaveError as exc:
        return record, checked, digest, str(exc)
    return record, checked, digest, None


def _show_details(
    store: SaveStore, info: SaveInfo, record: SaveRecord | None, digest: str, *, as_json: bool
) -> dict[str, Any]:
    """The rows ``saves show`` prints (a sealed career's seed withheld; an overridden seed said)."""
    scenario = (record.scenario if record else {}) or {}
    description = scenario.get("description") or "-"
    own_seed = _scenario_seed(info.scenario, scenario)
    seed: Any = info.seed if not info.sealed else info.seed_text
    if own_seed is not None and own_seed != info.seed and not info.sealed:
        # --seed replaced the scenario's seed: its description speaks of another world.
        description = _without_seed_sentences(description)
        if not as_json:
            seed = f"{info.seed} (overridden; scenario {info.scenario} itself uses seed {own_seed})"
    details: dict[str, Any] = {
        "name": info.name,
        "career": info.career,
        "kind": info.kind,
        "scenario": info.scenario,
        "description": description,
        "seed": seed,
        "month": _month(info),
        "status": info.status,
        "created": info.created,
        "updated": info.updated,
        "file": str(store.blob_dir / info.file),
        "size": _size(info.size),
        "format version": info.format_version,
        "checksum": info.checksum,
        "world digest": digest,
    }
    if as_json and own_seed is not None:
        details["scenario seed"] = own_seed
        details["seed overridden"] = own_seed != info.seed
    if record is not None:
        details["pibench version"] = record.meta.get("pibench_version", "-")
        details.update(_state_facts(record))
    return details


def _modified_problem(info: SaveInfo, record: SaveRecord) -> str | None:
    """A world state named after a bundled scenario whose parameters differ from it: the
    problem to report, else ``None``."""
    if not is_world_state(record.state):
        return None
    scenario = record.scenario or {}
    cfg = record.state.get("config") if isinstance(record.state, dict) else None
    changed = modified_scenario(info.scenario, cfg if isinstance(cfg, dict) else scenario.get("config"))
    if not changed:
        return None
    shown = ", ".join(changed[:8]) + (" ..." if len(changed) > 8 else "")
    return (
        f"modified scenario: the save is named after the bundled scenario {info.scenario!r} "
        f"but its world parameters differ ({shown})"
    )


def cmd_show(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Show one save's details and verify it completely (format, checksum, and for a world
    state its digest and a replay of its action log).

    Args:
        args: ``saves``, ``name`` (a save name or a career), ``json``.
        out: where the details go.
        err: where warnings and errors go.

    Returns:
        0 when the save is intact, 1 when it fails verification, 2 when there is no such save.
    """
    out, err = out or sys.stdout, err or sys.stderr
    store = None
    try:
        store = _store(args)
        info = store.resolve(args.name)
    except SaveError as exc:
        return _fail(exc, store, err)
    record, checked, digest, problem = _verify_for_show(store, info)
    _flush_warnings(store, err)
    as_json = getattr(args, "json", False)
    details = _show_details(store, info, record, digest, as_json=as_json)
    if info.name != args.name:  # a career's name: its newest save, perhaps newer than the save NAME
        details["asked"] = f"{args.name!r}: the newest save of career {info.career!r}"
        older = next((i for i in store.list() if i.name == args.name), None)
        if older is not None:
            details["asked"] += (
                f"; the save called {args.name!r} is older (month {_month(older)}, {older.status}, "
                f"updated {_when(older.updated)})"
            )
    if problem is None and record is not None:
        problem = _modified_problem(info, record)
    details["integrity"] = checked if problem is None else f"FAILED: {problem}"
    if as_json:
        json.dump(details, out, ensure_ascii=False, indent=1)
        print(file=out)
    else:
        width = max(len(k) for k in details)
        for k, v in details.items():
            print(f"{k.ljust(width)}  {v}", file=out)
    if problem is not None:
        print(f"error: {problem}", file=err)
        return 1
    return 0


def cmd_delete(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None, stdin: TextIO | None = None
) -> int:
    """Delete the save called exactly ``args.name``, after asking: on a terminal ``Delete ...?
    [y/N]`` (only ``y``/``yes`` deletes); ``args.yes`` (``--yes``) skips the question; a
    ``stdin`` that is not a terminal without ``--yes`` is refused (nothing deleted), since
    no one is there to answer.

    Returns:
        0 when deleted, 2 when no such save, 1 when the store or career is busy, the answer
        was not yes, or no terminal to ask on and no ``--yes``.
    """
    out, err, stdin = out or sys.stdout, err or sys.stderr, stdin or sys.stdin
    store = None
    try:
        store = _store(args)
        if not getattr(args, "yes", False):
            found = store.resolve(args.name, exact=True)
            what = f"save {found.name!r} (career {found.career!r}, month {_month(found)}, {found.scenario})"
            if not stdin.isatty():
                _flush_warnings(store, err)
                print(
                    f"error: not deleting {what} without a confirmation: stdin is not a terminal to ask on; "
                    "add --yes to delete it",
                    file=err,
                )
                return 1
            _flush_warnings(store, err)
            print(f"Delete {what}? It cannot be undone. [y/N] ", end="", file=out, flush=True)
            answer = stdin.readline()
            if answer.strip().lower() not in ("y", "yes"):
                if not answer.endswith("\n"):  # end of input (Ctrl-D): end the question's line
                    print(file=out)
                print("Not deleted.", file=out)
                return 1
        info = store.delete(args.name)
    except SaveError as exc:
        return _fail(exc, store, err)
    _flush_warnings(store, err)
    print(f"Deleted save {info.name!r} (month {_month(info)}, {info.scenario}).", file=out)
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Write a save to a self-contained file (after verifying it).

    ``args.file == "-"`` writes the file's bytes to stdout. A sealed career's save holds its
    secret seed in clear (the world needs it to replay): it is refused unless
    ``args.with_seed`` says the file is to be kept as secret as the seal file.

    Returns:
        0 when written, 2 when no such save, 1 on any other error (nothing is written then).
    """
    out, err = out or sys.stdout, err or sys.stderr
    store = None
    try:
        store = _store(args)
        sealed = store.resolve(args.name).sealed
        if sealed and not getattr(args, "with_seed", False):
            raise SaveError(
                f"save {args.name!r} is of a sealed career (commitment {sealed}...): an exported file holds its "
                "secret seed in clear, which unseals it for whoever reads the file; give --with-seed to export it "
                "anyway and keep the file as secret as the seal file (docs/saves.md)"
            )
        if args.file == "-":
            raw = store.export_bytes(args.name)  # verified; an autosave delta written whole
            buf = getattr(out, "buffer", None)
            if buf is not None:
                buf.write(raw)
                buf.flush()
            else:
                out.write(raw.decode("utf-8"))
            _flush_warnings(store, err)
            return 0
        path = store.export(args.name, args.file, overwrite=getattr(args, "force", False))
    except SaveExistsError as exc:
        return _fail(SaveError(f"{exc}; use --force to overwrite it"), store, err)
    except (SaveError, OSError) as exc:
        return _fail(exc, store, err)
    _flush_warnings(store, err)
    print(f"Exported save {args.name!r} to {path}.", file=out)
    return 0


def cmd_import(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Verify a save file and add it to the store.

    Returns:
        0 when imported, 1 when the file is bad (truncated, corrupt, tampered, future
        version) or the name is taken without ``--force``, 2 when there is no such file.
    """
    out, err = out or sys.stdout, err or sys.stderr
    if not os.path.lexists(args.file):
        print(f"error: FILE {args.file}: no such file; give a save file written by `pibench saves export`", file=err)
        return 2
    store = None
    try:
        store = _store(args)
        info = store.import_file(
            args.file, name=getattr(args, "as_name", None), overwrite=getattr(args, "force", False)
        )
    except SaveExistsError as exc:
        return _fail(
            SaveError(f"{exc}; use --as NAME to import it under another name, or --force to replace it"), store, err
        )
    except (SaveError, OSError) as exc:
        return _fail(exc, store, err)
    _flush_warnings(store, err)
    print(f"Imported save {info.name!r} (month {_month(info)}, {info.scenario}, seed {info.seed_text}).", file=out)
    return 0


def add_saves_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``saves`` and its subcommands on an argparse subparsers object.

    Args:
        subparsers: the result of ``parser.add_subparsers()``.

    Returns:
        The ``saves`` parser (its subcommands set ``args.func``).
    """
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--saves",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the save store folder (default: $PIBENCH_HOME/saves or the user data folder)",
    )
    p = subparsers.add_parser(
        "saves",
        parents=[common],
        help="list, show, delete, export and import saved careers",
        description="Manage saved careers.",
    )
    sub = p.add_subparsers(dest="saves_command", metavar="COMMAND", required=True)

    s = sub.add_parser("list", parents=[common], help="list the saves", description="List the saves, oldest first.")
    s.add_argument("--career", metavar="NAME", help="only this career's saves")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser(
        "show",
        parents=[common],
        help="show and verify one save",
        description="Show a save's details and verify its checksum and format.",
    )
    s.add_argument("name", help="a save name, or a career name for its most recent save")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser(
        "delete",
        parents=[common],
        help="delete one save (asks first)",
        description=(
            "Delete the save with exactly this name. On a terminal it asks first (y/N); "
            "without a terminal (a script, a pipe) it refuses unless --yes is given."
        ),
    )
    s.add_argument("name", help="the save's exact name (autosaves are CAREER@mMM; see 'pibench saves list')")
    s.add_argument("-y", "--yes", action="store_true", help="delete without asking (for scripts)")
    s.set_defaults(func=cmd_delete)

    s = sub.add_parser(
        "export",
        parents=[common],
        help="write a save to a file",
        description="Write a save to a self-contained file that 'pibench saves import' reads.",
    )
    s.add_argument("name", help="a save name, or a career name for its most recent save")
    s.add_argument("file", help="the file to write ('-' for stdout)")
    s.add_argument("--force", action="store_true", help="overwrite the file if it exists")
    s.add_argument(
        "--with-seed",
        action="store_true",
        help="export a sealed career's save, whose file holds the secret seed in clear (refused without it)",
    )
    s.set_defaults(func=cmd_export)

    s = sub.add_parser(
        "import",
        parents=[common],
        help="add a save file to the store",
        description="Verify an exported save file and add it to the store.",
    )
    s.add_argument("file")
    s.add_argument("--as", dest="as_name", metavar="NAME", help="store it under this name")
    s.add_argument("--force", action="store_true", help="replace an existing save of that name")
    s.set_defaults(func=cmd_import)
    parser: argparse.ArgumentParser = p
    return parser
