"""The agent process of the headless sandbox (MECHANICS §16): policy check and executor.

This file has two roles:

* Imported by the parent (``pibench_tui.sandbox``), it provides the static policy
  check (:func:`check_source`) so that refused code is answered without a round trip.
* Run as a script by the parent (``python -S -s -P sandbox/child.py``, clean
  environment, working directory ``/``), it is the **agent process**: it executes
  agent code with restricted builtins and reaches the world only through a small RPC
  of API calls (namespace, method, args, kwargs) carrying JSON over its stdin/stdout
  pipes. It never imports ``world`` (nor anything of ours) and holds no hidden state,
  so even an escape from the policy check finds nothing to read but its own variables.

Everything here is standard library only, imported before the OS limits are applied.

Wire protocol: one JSON object per line (UTF-8), in both directions.

parent -> child
    ``{"t": "init", "spec": {...}, "max_output": int, "seed": int, "memory_limit": int}``
    ``{"t": "run", "id": int, "code": str, "filename": str, "first_line": int}``
    ``{"t": "ret", "ok": true, "v": value}`` / ``{"t": "ret", "ok": false, "code": str,
    "message": str}`` (the answer to a ``call``)
child -> parent
    ``{"t": "ready"}`` after ``init``
    ``{"t": "call", "ns": str, "m": str, "a": list, "k": dict}`` (an API call)
    ``{"t": "out", "s": str}`` (agent output, the head of the block's output)
    ``{"t": "done", "id": int, "error": null | {"type", "message", "line"}, "tail": str,
    "omitted": int}`` (end of a block: its id, the kept tail and how many characters
    were cut)

The protocol's JSON is encoded and decoded by private code (:func:`_json_encode`,
:func:`_json_decode`), never by the ``json`` module agent code can import and patch.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import threading
import time as _time

# --------------------------------------------------------------------------------------
# The policy (shared with the parent)
# --------------------------------------------------------------------------------------

#: Pure standard modules agent code may import (MECHANICS §16, as decided for pibench).
ALLOWED_MODULES: tuple[str, ...] = (
    "math",
    "statistics",
    "random",
    "json",
    "collections",
    "itertools",
    "functools",
    "re",
    "heapq",
    "bisect",
)

#: Public names left out of the module copies agent code gets: each reads or evaluates
#: attributes by a caller-chosen name (``update_wrapper``/``wraps`` copy arbitrary
#: attributes, ``singledispatch`` evaluates string annotations), so each could walk
#: around the policy check.
_MODULE_DENY: dict[str, frozenset[str]] = {
    "functools": frozenset(
        {
            "update_wrapper",
            "wraps",
            "WRAPPER_ASSIGNMENTS",
            "WRAPPER_UPDATES",
            "singledispatch",
            "singledispatchmethod",
        }
    ),
}

#: Names agent code may not mention at all (they are not in its builtins either).
BLOCKED_NAMES: frozenset[str] = frozenset(
    {
        "open",
        "exec",
        "eval",
        "compile",
        "globals",
        "vars",
        "locals",
        "breakpoint",
        "setattr",
        "delattr",
        "input",
    }
)

#: Attribute names of frames, code objects, generators, coroutines and tracebacks (and
#: the Python 2 spellings of function internals): never readable, by any spelling.
FRAME_ATTRS: frozenset[str] = frozenset(
    {
        "f_back",
        "f_builtins",
        "f_code",
        "f_globals",
        "f_locals",
        "f_lasti",
        "f_lineno",
        "f_trace",
        "f_trace_lines",
        "f_trace_opcodes",
        "func_globals",
        "func_code",
        "func_closure",
        "func_defaults",
        "im_func",
        "im_self",
        "im_class",
        "mro",
    }
)
_FRAME_PREFIXES: tuple[str, ...] = ("gi_", "cr_", "ag_", "tb_", "co_")

#: Special methods agent classes may define (defining one reads nothing; the ones that
#: could receive or forward hidden objects — ``__getattr__``, ``__setattr__``,
#: ``__getattribute__``, ``__set_name__``, ``__init_subclass__``, ``__class_getitem__``,
#: ``__reduce__`` ... — stay refused).
SAFE_SPECIAL_METHODS: frozenset[str] = frozenset(
    {
        "__init__",
        "__repr__",
        "__str__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__bool__",
        "__len__",
        "__iter__",
        "__next__",
        "__contains__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__call__",
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__floordiv__",
        "__mod__",
        "__neg__",
        "__abs__",
        "__enter__",
        "__exit__",
    }
)

#: The largest agent source accepted per block, in characters.
MAX_SOURCE_CHARS = 1_000_000


class SandboxViolation(Exception):
    """Agent code refused by the static policy check (MECHANICS §16).

    Attributes:
        message: What was refused and why, for the agent.
        line: 1-based line number in the agent's text, or ``None``.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _is_dunder(name: str) -> bool:
    return name.startswith("__")


def attribute_refusal(name: str) -> str | None:
    """Say why reading or writing the attribute ``name`` is refused, or ``None`` if allowed.

    Args:
        name: An attribute name as written in agent code (or given to ``getattr``).

    Returns:
        A message for the agent, or ``None`` when the attribute is allowed.
    """
    if not isinstance(name, str):
        return "attribute names must be strings"
    if name.startswith("_"):
        kind = "special (dunder)" if _is_dunder(name) else "private"
        return (
            f"attribute {name!r} is not allowed: {kind} attributes are out of reach "
            "in the sandbox"
        )
    if name in ("format", "format_map"):
        # str.format walks attributes named in its template: only a direct call on a
        # literal template is allowed (checked by the policy), never a fetched method.
        return (
            f"attribute {name!r} is only allowed as a direct call on a string literal; "
            "use an f-string"
        )
    if name in FRAME_ATTRS or name.startswith(_FRAME_PREFIXES):
        return (
            f"attribute {name!r} is not allowed: frame, code, generator and traceback "
            "internals are out of reach in the sandbox"
        )
    return None


def _format_fields_refusal(template: str) -> str | None:
    """Check a literal ``str.format`` template: no private or internal attribute fields."""
    import _string  # the C helper behind string.Formatter (stdlib)

    def walk(text: str, depth: int) -> str | None:
        if depth > 2:
            return "format template nests too deeply"
        try:
            parsed = list(_string.formatter_parser(text))
        except ValueError as exc:
            return f"bad format template: {exc}"
        for _literal, field, spec, _conv in parsed:
            if field is None:
                continue
            try:
                _first, rest = _string.formatter_field_name_split(field)
                parts = list(rest)
            except ValueError as exc:
                return f"bad format field {field!r}: {exc}"
            for is_attr, key in parts:
                if is_attr:
                    why = attribute_refusal(key)
                    if why is not None:
                        return f"format field {field!r}: {why}"
            if spec:
                why = walk(spec, depth + 1)
                if why is not None:
                    return why
        return None

    return walk(template, 0)


class _PolicyChecker(ast.NodeVisitor):
    """Walks an agent module and collects the first refusal."""

    def __init__(self) -> None:
        self.class_depth = 0

    def refuse(self, node: ast.AST, message: str) -> None:
        raise SandboxViolation(message, getattr(node, "lineno", None))

    def check_name(self, node: ast.AST, name: str | None, what: str) -> None:
        if name is None:
            return
        if _is_dunder(name):
            self.refuse(node, f"{what} {name!r} is not allowed: names starting with '__' are reserved")

    # names ----------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "__name__" and isinstance(node.ctx, ast.Load):
            return  # "__main__", for the `if __name__ == "__main__":` idiom of scripts
        self.check_name(node, node.id, "name")
        if node.id in BLOCKED_NAMES:
            self.refuse(node, f"{node.id}() is not available in the sandbox")
        if node.id in ("getattr", "hasattr"):
            # A bare mention (passing getattr around) could hide its attribute name.
            self.refuse(node, f"{node.id} may only be called directly, with a literal attribute name")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr"):
            if len(node.args) < 2 or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                self.refuse(node, f"{func.id}(obj, 'name') needs a literal attribute name")
            name_node = node.args[1]
            if not (isinstance(name_node, ast.Constant) and isinstance(name_node.value, str)):
                self.refuse(
                    node,
                    f"{func.id}() with a computed attribute name is not allowed; "
                    "write the name as a string literal",
                )
            why = attribute_refusal(name_node.value)
            if why is not None:
                self.refuse(node, why)
            for arg in node.args:
                self.visit(arg)
            return
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map"):
            self.check_format(func)
            self.visit(func.value)
            for arg in node.args:
                self.visit(arg)
            for kw in node.keywords:
                self.visit(kw)
            return
        self.generic_visit(node)

    def check_format(self, node: ast.Attribute) -> None:
        value = node.value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            self.refuse(
                node,
                f".{node.attr}() is only allowed on a string literal (its fields can read "
                "attributes); use an f-string",
            )
        why = _format_fields_refusal(value.value)
        if why is not None:
            self.refuse(node, why)

    # attributes -----------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ("format", "format_map"):
            # Only a direct call on a literal is allowed (see visit_Call).
            self.refuse(node, f".{node.attr} may only be called directly on a string literal")
        if node.attr == "__init__" and self._is_super_call(node.value):
            self.generic_visit(node)
            return
        why = attribute_refusal(node.attr)
        if why is not None:
            self.refuse(node, why)
        self.generic_visit(node)

    @staticmethod
    def _is_super_call(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and not node.args
            and not node.keywords
        )

    # imports --------------------------------------------------------------------------
    def _refuse_import(self, node: ast.AST, name: str) -> None:
        self.refuse(
            node,
            f"import of {name!r} is not allowed; allowed modules: {', '.join(ALLOWED_MODULES)}",
        )

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_MODULES:
                self._refuse_import(node, alias.name)
            self.check_name(node, alias.asname, "name")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__" and not node.level:
            return  # a compiler directive (scripts often start with one); harmless
        if node.level or node.module not in ALLOWED_MODULES:
            self._refuse_import(node, "." * node.level + (node.module or ""))
        public = module_public_names(node.module)
        for alias in node.names:
            if alias.name != "*" and alias.name.startswith("_"):
                self.refuse(node, f"cannot import private name {alias.name!r}")
            if alias.name != "*" and alias.name not in public:
                # Never a submodule: ``from json import decoder`` would otherwise reach
                # the real module through CPython's sys.modules fallback of IMPORT_FROM.
                self.refuse(
                    node,
                    f"cannot import {alias.name!r} from {node.module!r}: the sandbox's "
                    f"{node.module} has no such public name (submodules are not available)",
                )
            self.check_name(node, alias.asname, "name")

    # definitions ----------------------------------------------------------------------
    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if _is_dunder(node.name):
            if not (self.class_depth and node.name in SAFE_SPECIAL_METHODS):
                self.refuse(
                    node,
                    f"defining {node.name!r} is not allowed; special methods allowed in "
                    "classes: " + ", ".join(sorted(SAFE_SPECIAL_METHODS)),
                )
        saved = self.class_depth
        self.class_depth = 0  # a nested function body is not a class body
        self.generic_visit(node)
        self.class_depth = saved

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        saved = self.class_depth
        self.class_depth = 0
        self.generic_visit(node)
        self.class_depth = saved

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.check_name(node, node.name, "class name")
        for kw in node.keywords:
            if kw.arg == "metaclass":
                self.refuse(node, "metaclasses are not allowed in the sandbox")
        # Decorators, bases and keywords are evaluated outside the class body.
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        self.class_depth += 1
        for stmt in node.body:
            self.visit(stmt)
        self.class_depth -= 1

    def visit_arg(self, node: ast.arg) -> None:
        self.check_name(node, node.arg, "argument")
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self.check_name(node, node.arg, "keyword argument")
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.check_name(node, name, "name")

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.check_name(node, node.name, "name")
        self.generic_visit(node)

    # pattern matching reads attributes by keyword (``case C(__class__=x)``)
    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            why = attribute_refusal(attr)
            if why is not None:
                self.refuse(node, why)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.check_name(node, node.name, "name")
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self.check_name(node, node.name, "name")

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.check_name(node, node.rest, "name")
        self.generic_visit(node)


def check_tree(tree: ast.AST) -> None:
    """Apply the sandbox policy (MECHANICS §16) to a parsed agent module.

    Args:
        tree: The module as returned by :func:`ast.parse`.

    Raises:
        SandboxViolation: At the first refused construct, with its line.
    """
    _PolicyChecker().visit(tree)


def parse_agent_code(code: str, filename: str = "<stdin>", first_line: int = 1) -> ast.Module:
    """Parse agent code, check it against the policy and shift its line numbers.

    Args:
        code: Agent Python source.
        filename: Name shown in errors (``<stdin>`` for piped text).
        first_line: Line number of the first line of ``code`` in the agent's text
            (1-based), so errors point into the agent's own text.

    Returns:
        The checked module, with line numbers already shifted by ``first_line - 1``.

    Raises:
        SyntaxError: ``code`` is not valid Python (line numbers shifted).
        SandboxViolation: ``code`` is valid but refused (line numbers shifted).
    """
    if code.startswith("\ufeff"):
        code = code[1:]  # a UTF-8 byte-order mark, as Python accepts in files
    if len(code) > MAX_SOURCE_CHARS:
        raise SandboxViolation(
            f"block too long: {len(code):,} characters (limit {MAX_SOURCE_CHARS:,})", first_line
        )
    try:
        tree = ast.parse(code, filename, "exec")
    except SyntaxError as exc:
        exc.lineno = first_line if exc.lineno is None else exc.lineno + first_line - 1
        raise
    except ValueError as exc:  # e.g. NUL bytes in the source
        raise SyntaxError(str(exc), (filename, first_line, 0, "")) from None
    except (MemoryError, RecursionError):
        raise SyntaxError("code too deeply nested to parse", (filename, first_line, 0, "")) from None
    if first_line != 1:
        ast.increment_lineno(tree, first_line - 1)
    try:
        check_tree(tree)
    except RecursionError:
        raise SandboxViolation("code too deeply nested to check", first_line) from None
    return tree


def check_source(code: str, filename: str = "<stdin>", first_line: int = 1) -> str | None:
    """Return why agent code is refused (syntax or policy), or ``None`` if it may run.

    Args:
        code: Agent Python source.
        filename: Name used for syntax errors.
        first_line: Line of ``code``'s first line in the agent's text (1-based).

    Returns:
        ``None`` when the code passes; else a one-line message such as
        ``"line 3: attribute '__class__' is not allowed: ..."``.
    """
    try:
        parse_agent_code(code, filename, first_line)
    except SyntaxError as exc:
        return f"line {exc.lineno}: SyntaxError: {exc.msg}"
    except SandboxViolation as exc:
        return f"line {exc.line}: SandboxError: {exc.message}"
    return None


# --------------------------------------------------------------------------------------
# The agent process
# --------------------------------------------------------------------------------------

_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
_MAX_ARG_BYTES = 1_000_000


class ActionError(Exception):
    """A refused API call, as agent code sees it (MECHANICS §15).

    Attributes:
        code: Short machine-readable reason, e.g. ``"career_over"``.
        message: The API's explanation, shown verbatim.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# The protocol's own JSON (MECHANICS §16). Agent code may import ``json`` and its
# classes are the real ones: a patched ``json.JSONEncoder.encode`` or ``JSONDecoder.decode``
# would otherwise let agent code write or read protocol messages. So the protocol never
# uses the ``json`` module: it encodes with the private pure-Python encoder below (which
# calls only methods of the built-in types, looked up on the types themselves, never on
# the values) and decodes with the C scanner of ``_json`` built over a private context.
# Agent code can reach neither.

_JSON_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_JSON_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
_JSON_MAX_DEPTH = 200
_str_translate = str.translate
_int_repr = int.__repr__
_float_repr = float.__repr__
_dict_items = dict.items
_list_iter = list.__iter__
_tuple_iter = tuple.__iter__
_str_join = str.join
_isinstance = isinstance


def _json_str(s: str) -> str:
    return '"' + _str_translate(s, _JSON_ESCAPES) + '"'


def _json_encode(obj: object, depth: int = 0) -> str:
    """Encode ``obj`` as compact JSON: dicts with string keys, lists and tuples, str,
    int, float (never NaN or infinity), bool and None (subclasses read as their base
    type). Raises ``TypeError``/``ValueError`` for anything else."""
    if depth > _JSON_MAX_DEPTH:
        raise ValueError("value nested too deeply")
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if _isinstance(obj, str):
        return _json_str(obj)
    if _isinstance(obj, int):
        return _int_repr(obj)
    if _isinstance(obj, float):
        text = _float_repr(obj)
        if text in ("nan", "inf", "-inf"):
            raise ValueError(f"out of range float values are not JSON compliant: {text}")
        return text
    if _isinstance(obj, dict):
        parts = []
        for key, value in _dict_items(obj):
            if not _isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            parts.append(_json_str(key) + ":" + _json_encode(value, depth + 1))
        return "{" + _str_join(",", parts) + "}"
    if _isinstance(obj, (list, tuple)):
        items = _list_iter(obj) if _isinstance(obj, list) else _tuple_iter(obj)
        return "[" + _str_join(",", [_json_encode(v, depth + 1) for v in items]) + "]"
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


class _JsonContext:
    """The private settings of the protocol's decoder (read once by the C scanner)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str) -> object:
        raise ValueError(f"{name} is not allowed in the protocol")


try:
    from _json import make_scanner as _c_make_scanner

    _json_scan = _c_make_scanner(_JsonContext())
except ImportError:  # pragma: no cover - CPython always has _json
    _json_scan = None


def _json_decode(text: str) -> object:
    """Decode one protocol message (NaN and infinity refused)."""
    if _json_scan is None:  # pragma: no cover
        return json.loads(text, parse_constant=_JsonContext.parse_constant)
    try:
        value, end = _json_scan(text, 0)
    except StopIteration as exc:
        raise ValueError("unreadable message") from exc
    if text[end:].strip():
        raise ValueError("extra data after the message")
    return value


class _Channel:
    """Line-delimited JSON over two file descriptors (the parent's pipes)."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd = rfd
        self.wfd = wfd
        self.buf = b""
        self.lock = threading.Lock()

    def send(self, msg: dict) -> None:
        data = _json_encode(msg).encode("utf-8", "replace")
        self.send_raw(data + b"\n")

    def send_raw(self, data: bytes) -> None:
        """Write one encoded message (ending in a newline)."""
        with self.lock:  # the watchdog thread sends output too
            view = memoryview(data)
            while view:
                n = os.write(self.wfd, view)
                view = view[n:]

    def recv(self) -> dict:
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 1 :]
                try:
                    msg = _json_decode(line.decode("utf-8"))
                except Exception:  # noqa: BLE001 - an unreadable message from the parent
                    os._exit(5)
                if type(msg) is not dict:
                    os._exit(5)
                return msg
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:  # the parent is gone
                os._exit(0)
            self.buf += chunk


class _OutputCap:
    """Keeps a block's output within ``limit`` characters: the head streams to the parent
    as it is printed, the tail is kept in a bounded buffer, the middle is only counted.

    The watchdog thread flushes pending head output every 0.1 s, so what a block printed
    before it hung still reaches the parent when the block is killed.
    """

    def __init__(self, channel: _Channel, limit: int) -> None:
        self.channel = channel
        self.limit = max(0, int(limit))
        self.head_limit = self.limit // 2 + self.limit % 2
        self.tail_limit = self.limit // 2
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.head_used = 0
            self.pending: list[str] = []
            self.pending_len = 0
            self.tail = ""
            self.tail_total = 0  # characters that went past the head
            self.last_flush = _monotonic()

    def write(self, text: str) -> None:
        if not text:
            return
        with self.lock:
            room = self.head_limit - self.head_used
            if room > 0:
                part = text[:room]
                self.head_used += len(part)
                self.pending.append(part)
                self.pending_len += len(part)
                text = text[room:]
                if self.head_used >= self.head_limit or self.pending_len >= 8192:
                    self._flush_locked()
            if text:
                self.tail_total += len(text)
                if self.tail_limit:
                    self.tail += text
                    if len(self.tail) > 2 * self.tail_limit + 4096:
                        self.tail = self.tail[-self.tail_limit :]

    def _flush_locked(self) -> None:
        if self.pending:
            self.channel.send({"t": "out", "s": "".join(self.pending)})
            self.pending = []
            self.pending_len = 0
        self.last_flush = _monotonic()

    def flush(self) -> None:
        with self.lock:
            self._flush_locked()

    def flush_if_stale(self, age: float) -> None:
        """Flush pending output older than ``age`` seconds (called by the watchdog)."""
        with self.lock:
            if self.pending and _monotonic() - self.last_flush >= age:
                self._flush_locked()

    def finish(self) -> tuple[str, int]:
        """Flush the head; return the kept tail and the number of characters cut."""
        with self.lock:
            self._flush_locked()
            tail = self.tail[-self.tail_limit :] if self.tail_limit else ""
            omitted = self.tail_total - len(tail)
            return tail, omitted


_monotonic = _time.monotonic


def _encode_call(ns: str, method: str, args: tuple, kwargs: dict) -> bytes:
    """Encode an API call for the parent; refuse arguments that are not plain JSON."""
    msg = {"t": "call", "ns": ns, "m": method, "a": list(args), "k": kwargs}
    try:
        text = _json_encode(msg)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ActionError(
            "bad_argument",
            f"arguments of {ns}.{method}() must be JSON-able (str, int, float, bool, None, "
            f"lists, dicts with string keys; no NaN or infinity): {exc}",
        ) from None
    if len(text) > _MAX_ARG_BYTES:
        raise ActionError(
            "bad_argument",
            f"arguments of {ns}.{method}() too large: {len(text):,} characters (limit {_MAX_ARG_BYTES:,})",
        )
    return text.encode("utf-8", "replace") + b"\n"


class _Runtime:
    """The agent process's state: channel, API proxies, globals, output cap."""

    def __init__(self, channel: _Channel, init: dict) -> None:
        self.channel = channel
        self.spec: dict = init.get("spec") or {}
        self.out = _OutputCap(channel, int(init.get("max_output", 20_000)))
        self.seed = int(init.get("seed", 0))
        self.limits: dict = init.get("limits") or {}
        self.memory_mib = int(init.get("memory_limit", 0)) >> 20
        self.modules = _module_copies()
        self.helps: dict[int, str] = {}  # help texts of our own functions, by id
        self.agent_files: set[str] = set()  # file names of agent code run so far
        self.globals = self._make_globals()

    # RPC ----------------------------------------------------------------------------
    def call(self, ns: str, method: str, args: tuple, kwargs: dict) -> object:
        data = _encode_call(ns, method, args, kwargs)
        self.out.flush()
        self.channel.send_raw(data)
        reply = self.channel.recv()
        if reply.get("t") != "ret":
            raise RuntimeError("sandbox protocol error: expected a reply to an API call")
        if reply.get("ok"):
            return reply.get("v")
        raise ActionError(str(reply.get("code", "error")), str(reply.get("message", "")))

    # globals ------------------------------------------------------------------------
    def _make_globals(self) -> dict:
        rt = self
        builtins_ns = _safe_builtins(self)
        g: dict = {"__builtins__": builtins_ns, "__name__": "__main__", "__doc__": None}
        for ns, calls in self.spec.items():
            g[ns] = _Namespace(rt, ns, calls)

        limits = self.limits
        chars = f"{limits['memory_max_chars']:,} characters" if "memory_max_chars" in limits else "the scenario's limit"
        rows = f"{limits['query_max_rows']:,} rows" if "query_max_rows" in limits else "the scenario's row limit"

        def query(sql):
            """Run one read-only SELECT/WITH statement on the observable database."""
            return rt.call("query", "query", (sql,), {})

        def read_memory():
            """Return your notes."""
            return rt.call("memory", "read", (), {})

        def write_memory(text):
            """Replace your notes."""
            return rt.call("memory", "write", (text,), {})

        memory_calls = {
            "read": {"params": [], "doc": f"Return your notes (at most {chars}).", "mutating": False},
            "write": {
                "params": [["text", {"required": True}]],
                "doc": f"Replace your notes (cut to {chars} with a notice).",
                "mutating": True,
            },
        }
        self.helps = {
            id(query): "query(sql)\n    Run one read-only SELECT or WITH statement on the observable "
            f"database and return its rows as a list of dicts (at most {rows}; a cut result ends "
            "with a {'_truncated': ...} row). Refused SQL raises ActionError.\n"
            "    Example: query(\"SELECT name FROM sqlite_master WHERE type = 'table'\")",
            id(read_memory): f"read_memory()\n    Return your notes (at most {chars}); "
            "the same as memory.read().",
            id(write_memory): f"write_memory(text)\n    Replace your notes (cut to {chars} "
            "with a notice); the same as memory.write(text). Notes are kept in saves.",
        }
        g["query"] = query
        self.help_targets.extend((query, read_memory, write_memory))
        g["memory"] = _Namespace(rt, "memory", memory_calls)
        g["read_memory"] = read_memory
        g["write_memory"] = write_memory
        g["ActionError"] = ActionError
        return g

    # execution ------------------------------------------------------------------------
    def run(self, msg: dict) -> None:
        code = msg.get("code")
        filename = str(msg.get("filename", "<stdin>"))
        first_line = int(msg.get("first_line", 1))
        block = msg.get("id")
        self.out.reset()
        error = None
        try:
            if not isinstance(code, str):
                raise SandboxViolation("code must be a string", None)
            tree = parse_agent_code(code, filename, first_line)
            self.agent_files.add(filename)
            self._execute(tree, filename)
        except SyntaxError as exc:
            error = {"type": "SyntaxError", "message": str(exc.msg), "line": exc.lineno}
        except SandboxViolation as exc:
            error = {"type": "SandboxError", "message": exc.message, "line": exc.line}
        except BaseException as exc:  # agent code may raise anything, SystemExit included
            error = _describe(exc, self.agent_files)
            if error["type"] == "MemoryError" and not error["message"]:
                error["message"] = (
                    f"out of memory: the agent process may use at most {self.memory_mib:,} MiB"
                    if self.memory_mib
                    else "out of memory"
                )
        tail, omitted = self.out.finish()
        done = {"t": "done", "error": error, "tail": tail, "omitted": omitted}
        if type(block) is int:
            done["id"] = block
        self.channel.send(done)

    def _execute(self, tree: ast.Module, filename: str) -> None:
        g = self.globals
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr):
                expr = ast.Expression(stmt.value)
                value = eval(compile(expr, filename, "eval"), g)  # noqa: S307 - checked code
                if value is not None:
                    self.out.write(repr(value) + "\n")
            else:
                module = ast.Module([stmt], type_ignores=[])
                exec(compile(module, filename, "exec"), g)  # noqa: S102 - checked code


def _describe(exc: BaseException, agent_files: set[str]) -> dict:
    """Type, message and agent-code line (the innermost frame of agent code) of an
    exception raised by agent code."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in agent_files:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        message = str(exc)
    except BaseException:  # an agent-defined __str__ may fail
        message = "<unprintable exception>"
    if isinstance(exc, RecursionError):
        message = message or "maximum recursion depth exceeded"
    return {"type": type(exc).__name__, "message": message, "line": line}


class _Call:
    """One API call as agent code sees it: ``lab.dashboard(...)``."""

    __slots__ = ("_rt", "_ns", "_name", "_spec")

    def __init__(self, rt: _Runtime, ns: str, name: str, spec: dict) -> None:
        object.__setattr__(self, "_rt", rt)
        object.__setattr__(self, "_ns", ns)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_spec", spec)

    def __call__(self, *args, **kwargs):
        return self._rt.call(self._ns, self._name, args, kwargs)

    def __setattr__(self, name, value):
        raise AttributeError(f"{self._ns}.{self._name} is read-only")

    def __delattr__(self, name):
        raise AttributeError(f"{self._ns}.{self._name} is read-only")

    def signature(self) -> str:
        parts = []
        for pname, default in self._spec.get("params", []):
            if isinstance(default, dict) and default.get("required"):
                parts.append(pname)
            else:
                parts.append(f"{pname}={default.get('default')!r}" if isinstance(default, dict) else pname)
        return f"{self._ns}.{self._name}({', '.join(parts)})"

    def __repr__(self) -> str:
        return f"<API call {self.signature()}>"

    def help_text(self) -> str:
        tag = " [changes the world]" if self._spec.get("mutating") else ""
        doc = (self._spec.get("doc") or "").strip()
        doc = "\n    ".join(line.strip() for line in doc.splitlines())
        return f"{self.signature()}{tag}\n    {doc}" if doc else f"{self.signature()}{tag}"


class _Namespace:
    """An API namespace (``lab``, ``time`` ...): read-only, its attributes are its calls."""

    __slots__ = ("_ns", "_calls")

    def __init__(self, rt: _Runtime, ns: str, calls: dict) -> None:
        object.__setattr__(self, "_ns", ns)
        object.__setattr__(
            self, "_calls", {name: _Call(rt, ns, name, spec) for name, spec in calls.items()}
        )

    def __getattr__(self, name):
        calls = object.__getattribute__(self, "_calls")
        if name in calls:
            return calls[name]
        ns = object.__getattribute__(self, "_ns")
        raise AttributeError(f"{ns} has no call {name!r}; its calls: {', '.join(calls)}")

    def __setattr__(self, name, value):
        ns = object.__getattribute__(self, "_ns")
        extra = " (the clock moves only through time.next_month())" if ns == "time" else ""
        raise AttributeError(f"the API namespace {ns!r} is read-only{extra}")

    def __delattr__(self, name):
        self.__setattr__(name, None)

    def __dir__(self):
        return list(object.__getattribute__(self, "_calls"))

    def __repr__(self) -> str:
        calls = object.__getattribute__(self, "_calls")
        ns = object.__getattribute__(self, "_ns")
        return f"<API namespace {ns}: {', '.join(c + '()' for c in calls)}>"

    def help_text(self) -> str:
        calls = object.__getattribute__(self, "_calls")
        return "\n".join(c.help_text() for c in calls.values())


def sandbox_module_name(name: str) -> str:
    """The ``__name__`` of the agent's copy of the allowed module ``name``.

    It is never a prefix of a key of ``sys.modules``: when ``from X import Y`` does not
    find ``Y`` on the copy, CPython's IMPORT_FROM looks up ``sys.modules[X.__name__ + "."
    + Y]``, which with the real name would hand out the real submodule (``json.decoder``,
    and from there ``re``, ``enum``, ``sys``).
    """
    return f"{name} (sandbox copy)"


_COPIES: dict | None = None


def module_public_names(name: str | None) -> frozenset[str]:
    """Public names of the agent's copy of the allowed module ``name`` (empty if none)."""
    copy = _module_copies().get(name or "")
    if copy is None:
        return frozenset()
    return frozenset(k for k in vars(copy) if not k.startswith("_"))


def _module_copies() -> dict:
    """Read-only copies of the allowed modules: public functions, classes and constants,
    no submodules (``json.codecs`` could open files, ``statistics.sys`` is ``sys``) and
    nothing of ``sys``/``os``/``io``.

    Built once per process; every copy is named by :func:`sandbox_module_name`.
    """
    global _COPIES
    if _COPIES is not None:
        return _COPIES
    import importlib
    import types

    copies = {}
    for name in ALLOWED_MODULES:
        real = importlib.import_module(name)
        copy = types.ModuleType(sandbox_module_name(name), getattr(real, "__doc__", None))
        deny = _MODULE_DENY.get(name, frozenset())
        public = getattr(real, "__all__", None) or [k for k in vars(real) if not k.startswith("_")]
        for key in public:
            if key.startswith("_") or key in deny or not hasattr(real, key):
                continue
            value = getattr(real, key)
            if isinstance(value, types.ModuleType) or _is_system_object(value):
                continue
            setattr(copy, key, value)
        copies[name] = copy
    _COPIES = copies
    return copies


def _is_system_object(value: object) -> bool:
    """Whether ``value`` is an object of ``sys``, ``os`` or ``io``, or one of the builtins
    agent code may not have: never put in a module copy."""
    import builtins
    import io

    if isinstance(value, (int, float, str, bytes, bool, type(None))):
        return False
    for mod in (sys, os, io):
        if any(value is v for v in vars(mod).values()):
            return True
    return any(value is getattr(builtins, n, None) for n in (*BLOCKED_NAMES, "__import__", "getattr", "hasattr"))


def _safe_builtins(rt: _Runtime) -> dict:
    """The builtins agent code gets (MECHANICS §16): no I/O, no introspection, no eval."""
    import builtins

    allowed = (
        "abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict "
        "divmod enumerate filter float format frozenset hash hex id int isinstance "
        "issubclass iter len list map max min next object oct ord pow property range "
        "repr reversed round set slice sorted staticmethod str sum super tuple zip "
        "True False None Ellipsis NotImplemented"
    ).split()
    ns = {name: getattr(builtins, name) for name in allowed}
    for name in dir(builtins):  # every exception and warning class
        value = getattr(builtins, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            ns[name] = value
    ns["__build_class__"] = builtins.__build_class__  # needed by ``class`` statements
    modules = rt.modules
    import __future__ as real_future

    import types

    future = types.ModuleType("__future__")
    for feature in real_future.all_feature_names:
        setattr(future, feature, getattr(real_future, feature))

    def safe_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "__future__" and not level:
            return future
        if level or name not in modules:
            raise ImportError(
                f"import of {name!r} is not allowed; allowed modules: {', '.join(ALLOWED_MODULES)}"
            )
        module = modules[name]
        for item in fromlist or ():
            # Only names the copy has: IMPORT_FROM must never fall back to sys.modules.
            if item != "*" and (not isinstance(item, str) or item.startswith("_") or item not in vars(module)):
                raise ImportError(f"cannot import {item!r} from {name!r} in the sandbox (no such public name)")
        return module

    def safe_getattr(obj, name, *default):
        why = attribute_refusal(name)
        if why is not None:
            raise AttributeError(why)
        return getattr(obj, name, *default)

    def safe_hasattr(obj, name):
        why = attribute_refusal(name)
        if why is not None:
            raise AttributeError(why)
        return hasattr(obj, name)

    def safe_print(*args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise TypeError("print(file=...) is not available in the sandbox")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be strings")
        rt.out.write(sep.join(str(a) for a in args) + end)

    own: list = []  # query, read_memory, write_memory (filled by _make_globals)
    rt.help_targets = own

    def safe_help(obj=None):
        if obj is None:
            lines = ["API namespaces (call help(lab) etc. for details):"]
            for ns_name in rt.spec:
                lines.append(f"  {ns_name}: " + ", ".join(rt.spec[ns_name]))
            lines.append("  query(sql), memory.read(), memory.write(text), read_memory(), write_memory(text)")
            lines.append(f"  modules: {', '.join(ALLOWED_MODULES)}")
            lines.append("  errors from the API raise ActionError (attributes .code, .message)")
            rt.out.write("\n".join(lines) + "\n")
        elif isinstance(obj, (_Namespace, _Call)):
            rt.out.write(obj.help_text() + "\n")
        elif any(obj is f for f in own):
            rt.out.write(rt.helps[id(obj)] + "\n")
        elif obj is safe_help:
            rt.out.write("help(), help(namespace), help(call)\n    Describe the API: help() lists the "
                         "namespaces and calls, help(lab) a namespace, help(lab.dashboard) one call.\n")
        else:
            doc = builtins.getattr(obj, "__doc__", None) if callable(obj) else None
            if not isinstance(doc, str) or not doc.strip():
                name = builtins.getattr(obj, "__name__", None) if callable(obj) else None
                what = name if isinstance(name, str) else f"{type(obj).__name__} objects"
                doc = f"no help for {what}"
            rt.out.write(doc.strip("\n") + "\n")

    ns.update(
        __import__=safe_import,
        getattr=safe_getattr,
        hasattr=safe_hasattr,
        print=safe_print,
        help=safe_help,
    )
    return ns


#: The unprivileged user and group the agent process becomes when started as root.
NOBODY = 65534


def _no_new_privs() -> bool:
    """Set ``PR_SET_NO_NEW_PRIVS`` (Linux): no exec can ever gain privileges again.

    Returns whether it took effect.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    except Exception:  # noqa: BLE001 - no ctypes, no libc: the other layers still apply
        return False
    for name in [m for m in sys.modules if m in ("ctypes", "_ctypes") or m.startswith("ctypes.")]:
        del sys.modules[name]  # leave nothing of ctypes importable by name
    return ok


def _drop_privileges() -> bool:
    """When running as root: no supplementary groups, then group and user ``nobody``
    (65534), which also clears every capability.

    Returns whether privileges were dropped: ``False`` when not root (nothing to drop)
    or when the system refuses (a user namespace without 65534 mapped); the other layers
    still apply then.
    """
    if not hasattr(os, "setresuid") or (os.getuid() != 0 and os.geteuid() != 0):
        return False
    try:
        os.setgroups([])
    except OSError:
        pass  # refused in some user namespaces; the gid/uid change still counts
    try:
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    except OSError:
        return False
    return os.getuid() != 0 and os.geteuid() != 0


def _apply_limits(memory_limit: int, keep_fds: int) -> None:
    """OS-enforced limits for the agent process (MECHANICS §16): address space, no new
    files (every descriptor number from ``keep_fds`` up is refused), no file writes, no
    core dumps, no new processes or threads (effective once root was dropped by
    :func:`_drop_privileges`: the kernel ignores ``RLIMIT_NPROC`` for root)."""
    try:
        import resource
    except ImportError:  # not POSIX: the parent's wall clock still applies
        return

    def lower(which: int, value: int) -> None:
        try:
            soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass

    if memory_limit > 0 and hasattr(resource, "RLIMIT_AS"):
        lower(resource.RLIMIT_AS, memory_limit)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_FSIZE, 0)
    lower(resource.RLIMIT_NOFILE, keep_fds)
    if hasattr(resource, "RLIMIT_NPROC") and os.getuid() != 0:
        lower(resource.RLIMIT_NPROC, 0)


def _watchdog(runtime: _Runtime) -> None:
    """A daemon thread: exits when the parent goes away (even if agent code is stuck in a
    loop) and flushes pending output every 0.1 s."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            _time.sleep(0.1)
            if os.getppid() != parent:
                os._exit(0)
            try:
                runtime.out.flush_if_stale(0.1)
            except OSError:
                os._exit(0)

    threading.Thread(target=watch, name="pibench-watchdog", daemon=True).start()


def _setup_descriptors() -> tuple[int, int]:
    """Keep the protocol on descriptors 0 (from the parent) and 1 (to the parent) and
    stderr on 2 (``/dev/null`` unless debugging); close everything else. Exactly three
    descriptors stay open and ``RLIMIT_NOFILE`` is 3: no spare slot, and no idle standard
    stream that could be closed to make one for opening a file."""
    os.closerange(3, 1 << 16)
    sys.stdout = sys.stderr  # stray writes through sys.stdout must not reach the protocol
    return 0, 1


def _child_main() -> None:
    rfd, wfd = _setup_descriptors()
    channel = _Channel(rfd, wfd)
    init = channel.recv()
    if init.get("t") != "init":
        os._exit(3)
    # No exec may ever gain privileges: set first (ctypes is used here and nowhere else).
    _no_new_privs()
    # Import everything this process and agent code need while files are reachable:
    # after the privilege drop the interpreter's own folder may be unreadable.
    import random

    try:
        import resource  # noqa: F401 - used by _apply_limits
    except ImportError:  # not POSIX
        pass

    runtime = _Runtime(channel, init)
    random.seed(runtime.seed)
    sys.setrecursionlimit(1000)
    _drop_privileges()
    _watchdog(runtime)  # the last thread: none can start once RLIMIT_NPROC is 0
    _apply_limits(int(init.get("memory_limit", 1 << 30)), 3)
    channel.send({"t": "ready"})
    while True:
        msg = channel.recv()
        kind = msg.get("t")
        if kind == "run":
            runtime.run(msg)
        elif kind == "exit":
            os._exit(0)
        else:
            os._exit(4)


if __name__ == "__main__":
    _child_main()
