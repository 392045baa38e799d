"""The sandbox policy (MECHANICS §16, Decisions 9): what agent code may write and use.

The operating system is the boundary of the sandbox (:mod:`confine`): the agent process
can read nothing but the Python installation, write nothing, open no socket, start no
process and signal no other process, whatever the Python code does. This module is the
first layer on top of it and, above all, a **lint**: it refuses what reaches outside the
agent process (``open``, ``exec``/``eval``/``compile`` of strings, imports outside
:data:`ALLOWED_MODULES`) with a message saying what is allowed, and keeps agent code away
from the interpreter's internals (dunder attributes other than :data:`READABLE_DUNDERS`,
frames, code objects), while ordinary Python runs: ``type(e).__name__``, private
attributes of the agent's own objects, ``getattr(obj, name)``, ``TEMPLATE.format(...)``,
dataclasses, typing, numpy ...

It provides

* the static check (:func:`check_source`, :func:`parse_agent_code`), run by the parent,
  which then compiles the block for the agent process (:func:`compile_agent_code`);
* the attribute rule shared by the static check and the agent process's runtime checks
  (:func:`attribute_refusal`, :func:`format_template_refusal`);
* the module copies agent code imports (:func:`module_copies`): public names only, no
  submodules but the listed ones, nothing of ``os``/``io``, file helpers replaced by
  stubs that say why they are not available.

Standard library only (it is loaded by the agent process, ``python -S -s -P``).
"""

from __future__ import annotations
import __future__

import ast
import re
import sys
import types
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

ERROR_TYPE_CHARS = 200
"""Longest exception type name an agent error reports (longer ones are cut)."""

MAX_CALL_CHARS = 1_000_000
"""Longest API call message (its JSON text, in characters) the agent process sends: larger
arguments are refused there (``ActionError`` ``bad_argument``); pibench bounds what it reads
by it (:func:`.protocol.message_limit`)."""

ERROR_MESSAGE_CHARS = 20_000
"""Longest exception message an agent error reports (longer ones are cut). Both are cut in
the agent process, so that no exception, however big its message, makes a protocol message
over the limit, and again in pibench (:func:`.protocol._clean_error`)."""


# --------------------------------------------------------------------------------------
# What agent code may import
# --------------------------------------------------------------------------------------

#: Modules agent code may import (MECHANICS §16 and Decisions 9). ``sys`` is a small
#: stand-in: ``sys.stdout``/``sys.stderr`` (both print into the block's output),
#: ``sys.maxsize``, ``sys.float_info``, ``sys.version_info`` ...; the dotted names are the
#: submodules that may be imported as such.
ALLOWED_MODULES: tuple[str, ...] = (
    "math",
    "statistics",
    "random",
    "json",
    "collections",
    "collections.abc",
    "itertools",
    "functools",
    "operator",
    "re",
    "heapq",
    "bisect",
    "copy",
    "dataclasses",
    "typing",
    "enum",
    "abc",
    "string",
    "datetime",
    "numpy",
    "numpy.random",
    "numpy.linalg",
    "numpy.fft",
    "sys",
    "pibench_agent",
)

#: The module holding the names pibench binds in agent code (``from pibench_agent import
#: lab, time``), so that an agent script type-checks against examples/stubs/pibench_agent.pyi
#: in an editor and runs unchanged in the sandbox. Built by the agent process from its own
#: bindings (the same objects as the globals); its names are checked when imported.
AGENT_MODULE = "pibench_agent"

#: Submodules kept as attributes of a module copy (``np.random.default_rng()``).
SUBMODULES: dict[str, tuple[str, ...]] = {
    "collections": ("abc",),
    "numpy": ("random", "linalg", "fft"),
}

#: Public names replaced in the module copies by a stub raising ``SandboxError`` that says
#: why: each reads or writes files, evaluates strings, or copies attributes by a
#: caller-chosen name around the attribute rule.
STUBBED: dict[str, dict[str, str]] = {
    "numpy": {
        name: "reads or writes files, and the agent process has no file access; keep notes with memory.write(text)"
        for name in (
            "load",
            "save",
            "savez",
            "savez_compressed",
            "loadtxt",
            "savetxt",
            "genfromtxt",
            "fromfile",
            "fromregex",
            "memmap",
            "DataSource",
        )
    },
    "typing": {
        "get_type_hints": "evaluates strings as code",
        "runtime_checkable": "is not available (it lets built-in types pass isinstance checks of agent classes)",
    },
    "functools": {
        "singledispatch": "evaluates string annotations",
        "singledispatchmethod": "evaluates string annotations",
    },
    "string": {"Formatter": "reads attributes named in a template; use str.format or an f-string"},
    "enum": {
        "global_enum": (
            "writes an enum's members into the namespace of the module its class names (the "
            "agent process's own runtime); use the members as E.NAME"
        ),
    },
}

#: Public names left out of a copy entirely (modules' internals that are no use to agents).
OMITTED: dict[str, frozenset[str]] = {
    "numpy": frozenset({"show_config", "show_runtime", "get_include", "info", "source", "test"}),
    "typing": frozenset({"ForwardRef"}),
}

# --------------------------------------------------------------------------------------
# Names and attributes
# --------------------------------------------------------------------------------------

#: Names agent code may not mention at all (they are not in its builtins either), with
#: what to do instead.
BLOCKED_NAMES: dict[str, str] = {
    "open": "the agent process cannot read or write files; keep notes with memory.write(text), read data with query(sql) and the API",
    "exec": "running code from strings is not allowed; write the code itself",
    "eval": "evaluating strings is not allowed; use int(), float(), json.loads() to parse values",
    "compile": "compiling strings is not allowed; write the code itself",
    "input": "there is no interactive input; read the world through the API",
    "breakpoint": "there is no debugger in the sandbox; print() what you need",
}

#: Dunder attributes agent code may read (never write): names and documentation.
READABLE_DUNDERS: frozenset[str] = frozenset(
    {"__name__", "__qualname__", "__class__", "__doc__", "__module__", "__dict__", "__slots__", "__version__"}
)

#: Dunder names agent code may bind in a class body (besides the special methods).
CLASS_BODY_DUNDERS: frozenset[str] = frozenset({"__slots__", "__hash__", "__doc__"})


def _introspection_attributes() -> frozenset[str]:
    """Attribute names of frames, code objects, generators, coroutines and tracebacks."""

    def gen() -> Any:  # pragma: no cover - never run
        yield 1

    async def coro() -> None:  # pragma: no cover - never run
        pass

    async def agen() -> Any:  # pragma: no cover - never run
        yield 1

    objs: list[Any] = [gen(), agen(), gen.__code__, sys._getframe()]
    c = coro()
    objs.append(c)
    try:
        raise ValueError
    except ValueError as exc:
        objs.append(exc.__traceback__)
    names: set[str] = set()
    for obj in objs:
        names |= {n for n in dir(obj) if n.startswith(("gi_", "cr_", "ag_", "tb_", "co_", "f_"))}
    c.close()
    return frozenset(names)


#: Attribute names of frames, code objects, generators, coroutines and tracebacks (and
#: the Python 2 spellings of function internals, and ``mro``): never readable.
FRAME_ATTRS: frozenset[str] = _introspection_attributes() | frozenset(
    {"func_globals", "func_code", "func_closure", "func_defaults", "im_func", "im_self", "im_class", "mro"}
)

#: Special methods agent classes may NOT define: each changes how classes are built or
#: how ``isinstance`` answers (which could make a built-in value match an agent class in a
#: ``match`` statement), or runs code at unpredictable times.
REFUSED_SPECIAL_METHODS: frozenset[str] = frozenset(
    {
        "__getattribute__",
        "__init_subclass__",
        "__set_name__",
        "__class_getitem__",
        "__mro_entries__",
        "__prepare__",
        "__instancecheck__",
        "__subclasscheck__",
        "__subclasshook__",
        "__del__",
        "__match_args__",
    }
)

#: Special attributes never read through ``super()`` (beyond :data:`REFUSED_SPECIAL_METHODS`):
#: they reach the interpreter's class registry or a class's real namespace. ``super().__setattr__``
#: and ``super().__delattr__`` are allowed, with the name checked at run time as ``setattr`` does.
SUPER_REFUSED: frozenset[str] = frozenset({"__subclasses__", "__dict__", "__base__", "__bases__", "__mro__"})

#: The largest agent source accepted per block, in characters.
MAX_SOURCE_CHARS = 1_000_000

#: Most functions, lambdas, classes and comprehensions (each a code object) in one block.
#: The parent compiles every block before it runs, outside the block's wall clock, and
#: CPython compiles many code objects of one scope in quadratic time (they hash alike):
#: 18,000 one-line functions in a 200,000-character block took pibench ~15 s of CPU, 2,000
#: ~0.2 s. The baseline agent has 31 in all.
MAX_CODE_OBJECTS = 2_000

#: Methods of numpy arrays and scalars that write a file (``a.tofile(path)``, ``a.dump(path)``):
#: refused at run time with :func:`file_method_refusal` (the agent process has no file access,
#: so they would fail with an obscure ``SystemError`` or "too many open files").
FILE_METHODS: frozenset[str] = frozenset({"tofile", "dump"})

#: Attribute names the agent process rewrites into a runtime-checked lookup
#: (``TEMPLATE.format`` checks the template's fields; ``cls.__dict__`` is refused; a numpy
#: object's :data:`FILE_METHODS` are refused).
CHECKED_ATTRIBUTES: frozenset[str] = frozenset({"format", "format_map", "__dict__"} | FILE_METHODS)


#: numpy's raw-pointer protocols: numpy reads a memory address from an object's
#: ``__array_interface__`` (``"data": (address, readonly)``) or ``__array_struct__`` (a
#: capsule) and builds an array over that memory, unchecked. An object agent code made that
#: answered either would read and write any memory of the agent process (an array over
#: ``id(x)``), as ctypes' ``from_address`` did. Agent classes never answer them: defining one is
#: refused, and the agent process shields every class made at run time (see
#: ``sandbox/child.py``'s ``_guard_raw_memory_protocols``).
RAW_MEMORY_PROTOCOLS: frozenset[str] = frozenset({"__array_interface__", "__array_struct__"})


def raw_memory_protocol_refusal(name: str) -> str:
    """The message for agent code giving an object one of :data:`RAW_MEMORY_PROTOCOLS`."""
    return (
        f"{name!r} is numpy's raw-memory protocol (numpy reads a memory address from it), and objects "
        "made in the sandbox cannot offer it; build arrays from values with np.array(...)"
    )


def file_method_refusal(name: str) -> str:
    """The message for a numpy object's file-writing method (:data:`FILE_METHODS`)."""
    return (
        f"numpy's {name}() writes a file, and the agent process has no file access; keep notes with "
        "memory.write(text) (a list of numbers can go there as text: memory.write(str(a.tolist())))"
    )


#: The builtin the rewritten lookups call (a dunder name: agent code cannot bind it).
CHECKED_ATTRIBUTE_HELPER = "__pibench_attr__"

#: The builtin every other attribute read of agent code is rewritten into
#: (``__pibench_get__(x, "name")`` for ``x.name``): it refuses a real module as the object
#: read from or as the value read (:func:`is_sandbox_module`).
PUBLIC_ATTRIBUTE_HELPER = "__pibench_get__"

#: The builtin an augmented assignment to an attribute (``x.n += 1``) is rewritten into, so
#: that the value it reads goes through the attribute helpers too: ``__pibench_iop__(value,
#: "iadd", operand)`` is ``operator.iadd(value, operand)``.
INPLACE_HELPER = "__pibench_iop__"

#: The temporary an augmented assignment to the attribute of an expression other than a
#: name (``a[i].n += 1``) holds that expression in, so it is evaluated once.
INPLACE_TARGET = "__pibench_target__"

#: ``operator``'s in-place function for each augmented-assignment operator.
INPLACE_OPERATORS: dict[type, str] = {
    ast.Add: "iadd",
    ast.Sub: "isub",
    ast.Mult: "imul",
    ast.MatMult: "imatmul",
    ast.Div: "itruediv",
    ast.FloorDiv: "ifloordiv",
    ast.Mod: "imod",
    ast.Pow: "ipow",
    ast.LShift: "ilshift",
    ast.RShift: "irshift",
    ast.BitOr: "ior",
    ast.BitXor: "ixor",
    ast.BitAnd: "iand",
}

#: The builtin a ``match`` statement calls first on the classes of its class patterns.
MATCH_CHECK_HELPER = "__pibench_match__"

#: The name a ``match`` statement's checked pattern classes and values are held in
#: (:class:`_MatchGuard`): its patterns read them from there, never a second time.
MATCH_CASE_HOLDER = "__pibench_case__"

#: Every name the rewritten code binds or calls starts so; agent code binds none of them,
#: and ``globals()``/``locals()`` do not show them (:func:`namespace_view`).
HELPER_PREFIX = "__pibench"

#: ``__name__`` of agent code's globals, hence ``__module__`` of every class it defines.
AGENT_CODE_MODULE = "__main__"


def attribute_name(name: object) -> str:
    """``name`` as the exact ``str`` every attribute check and the real operation after it
    use: a ``str`` subclass's own characters (``str.__str__``), so that its ``startswith``,
    ``__len__``, ``__eq__`` or ``__hash__`` cannot show a check a harmless name while the real
    ``getattr`` uses the real one (``getattr(f, Name('__globals__'))`` with ``Name.startswith``
    answering ``False`` once read child.py's globals).

    Raises:
        TypeError: ``name`` is not a string, as Python's ``getattr`` says.
    """
    if type(name) is str:
        return name
    if isinstance(name, str):
        return str.__str__(name)
    raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")


def is_private(name: str) -> bool:
    """Whether ``name`` is a private attribute name (a leading underscore, not a dunder):
    readable only on what agent code defined (:func:`private_owner_is_agent`). A ``str``
    subclass is judged by its characters (:func:`attribute_name`)."""
    if type(name) is not str:
        if not isinstance(name, str):
            return False
        name = str.__str__(name)
    return name.startswith("_") and not is_dunder(name)


def private_refusal(name: str) -> str:
    """The message for a private attribute read on an object agent code did not define."""
    return (
        f"attribute {name!r} is not allowed: private attributes (a leading underscore) can be read only "
        "on classes defined in agent code and their instances"
    )


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


def is_dunder(name: str) -> bool:
    """Whether ``name`` is a special (dunder) name: ``__x__`` (a ``str`` subclass judged by
    its characters, :func:`attribute_name`)."""
    if type(name) is not str:
        if not isinstance(name, str):
            return False
        name = str.__str__(name)
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _readable_list() -> str:
    return ", ".join(sorted(READABLE_DUNDERS))


def attribute_refusal(name: object, *, store: bool = False) -> str | None:
    """Say why reading (or, with ``store``, writing or deleting) the attribute ``name`` is
    refused, or return ``None`` if it is allowed.

    Private attributes (``self._cache``) are allowed; dunder attributes are readable only
    from :data:`READABLE_DUNDERS` and never writable; frame, code, generator and traceback
    internals never.

    Args:
        name: An attribute name as written in agent code (or given to ``getattr``).
        store: Whether the attribute is assigned or deleted.

    Returns:
        A message for the agent, or ``None`` when the attribute is allowed.
    """
    if not isinstance(name, str):
        return "attribute names must be strings"
    name = attribute_name(name)
    if is_dunder(name):
        if store:
            return f"attribute {name!r} cannot be assigned or deleted: special (dunder) attributes are read-only in the sandbox"
        if name not in READABLE_DUNDERS:
            return (
                f"attribute {name!r} is not allowed: of the special (dunder) attributes only "
                f"{_readable_list()} can be read in the sandbox"
            )
        return None
    if name in FRAME_ATTRS:
        return (
            f"attribute {name!r} is not allowed: frame, code, generator and traceback "
            "internals are out of reach in the sandbox"
        )
    return None


def format_template_refusal(template: object) -> str | None:
    """Check a ``str.format`` template: its fields may read only allowed attributes.

    Args:
        template: The template (anything else than a ``str`` passes).

    Returns:
        A message for the agent, or ``None`` when the template is allowed.
    """
    if not isinstance(template, str):
        return None
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


# --------------------------------------------------------------------------------------
# The static check
# --------------------------------------------------------------------------------------


#: Dunder names never bound by agent code, not even in a class body.
_RESERVED_NAMES = frozenset(
    {
        "__builtins__",
        "__import__",
        "__build_class__",
        "__class__",
        "__dict__",
        "__module__",
        "__qualname__",
        CHECKED_ATTRIBUTE_HELPER,
        PUBLIC_ATTRIBUTE_HELPER,
        INPLACE_HELPER,
        INPLACE_TARGET,
        MATCH_CHECK_HELPER,
    }
)


def _class_body_name_allowed(name: str) -> bool:
    """Whether a class body may bind the dunder ``name`` (``__slots__``, ``__hash__ =
    None``, ``__radd__ = __add__``: special methods other than the refused ones)."""
    if name in CLASS_BODY_DUNDERS:
        return True
    return name not in REFUSED_SPECIAL_METHODS and name not in _RESERVED_NAMES and not name.startswith(HELPER_PREFIX)


def namespace_view(names: Mapping[str, Any]) -> dict[str, Any]:
    """What ``globals()``/``locals()`` show agent code of the namespace ``names``: a copy
    without ``__builtins__`` and the rewritten code's helpers. A copy, so that agent code
    cannot rebind the helpers (or reach the builtins dict) by writing to it, which the
    static check would not see (QA pass 4, F1)."""
    return {k: v for k, v in names.items() if not (k == "__builtins__" or k.startswith(HELPER_PREFIX))}


def _allowed_list() -> str:
    return ", ".join(ALLOWED_MODULES)


#: Node types without fields and without a rule (contexts and operators): never visited.
_LEAF_NODES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)


class _PolicyChecker(ast.NodeVisitor):
    """Walks an agent module and raises at the first refusal.

    It visits exactly the nodes :class:`ast.NodeVisitor` visits, faster: the method for a
    node type is looked up once per type, fields are read directly, and nodes that have
    neither fields nor a rule (contexts, operators) are skipped.
    """

    def __init__(self, public_names: Callable[[str], frozenset[str]]) -> None:
        self.class_depth = 0
        self.public_names = public_names
        self.code_objects = 0

    def count_code_object(self, node: ast.AST) -> None:
        """Count a function, lambda, class or comprehension; refuse past :data:`MAX_CODE_OBJECTS`."""
        self.code_objects += 1
        if self.code_objects > MAX_CODE_OBJECTS:
            self.refuse(
                node,
                f"a block may define at most {MAX_CODE_OBJECTS:,} functions, lambdas, classes and "
                "comprehensions in all; send the rest in another block",
            )

    _methods: dict[type, Callable[[_PolicyChecker, Any], None]] = {}

    def visit(self, node: ast.AST) -> None:
        method = self._methods.get(node.__class__)
        if method is None:
            found = getattr(_PolicyChecker, "visit_" + node.__class__.__name__, None)
            # NodeVisitor's own visit_Constant only forwards to deprecated names we do not define.
            if found is None or found is ast.NodeVisitor.visit_Constant:
                found = _PolicyChecker.generic_visit
            method = self._methods[node.__class__] = found
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and not isinstance(item, _LEAF_NODES):
                        self.visit(item)
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAF_NODES):
                self.visit(value)

    def refuse(self, node: ast.AST, message: str) -> None:
        raise SandboxViolation(message, getattr(node, "lineno", None))

    def check_name(self, node: ast.AST, name: str | None, what: str) -> None:
        if name is not None and is_dunder(name):
            self.refuse(node, f"{what} {name!r} is not allowed: names of the form __x__ are reserved")

    # names ----------------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if is_dunder(node.id):
            if node.id == "__name__" and isinstance(node.ctx, ast.Load):
                return  # "__main__", for the `if __name__ == "__main__":` idiom of scripts
            if self.class_depth and not isinstance(node.ctx, ast.Del) and _class_body_name_allowed(node.id):
                return  # `__slots__ = (...)`, `__hash__ = None`, `__radd__ = __add__` in a class body
            self.check_name(node, node.id, "name")
        why = BLOCKED_NAMES.get(node.id)
        if why is not None:
            self.refuse(node, f"{node.id}() is not available in the sandbox: {why}")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
        ):
            # A literal name is checked here already (a computed one at run time).
            why = attribute_refusal(node.args[1].value, store=func.id in ("setattr", "delattr"))
            if why is not None:
                self.refuse(node, why)
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map"):
            value = func.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                why = format_template_refusal(value.value)
                if why is not None:
                    self.refuse(node, why)
        self.generic_visit(node)

    # attributes -----------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        store = not isinstance(node.ctx, ast.Load)
        if self._is_super_call(node.value) and is_dunder(node.attr) and not store:
            if not self._is_bare_super(node.value):
                # super(C, obj) names its object: super(abc.ABCMeta, abc.ABCMeta).__setattr__
                # was type.__setattr__ on any class, .__subclasses__ every class of the process.
                self.refuse(
                    node,
                    f"super(...).{node.attr} with arguments is not allowed in the sandbox: special (dunder) "
                    f"attributes can be read only through super() without arguments, inside a method "
                    f"(super().{node.attr})",
                )
            elif node.attr in REFUSED_SPECIAL_METHODS or node.attr in SUPER_REFUSED:
                self.refuse(node, f"super().{node.attr} is not allowed in the sandbox")
            self.generic_visit(node)  # super().__init__(...), super().__eq__(other) ...
            return
        why = attribute_refusal(node.attr, store=store)
        if why is not None:
            self.refuse(node, why)
        self.generic_visit(node)

    @staticmethod
    def _is_super_call(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"

    @staticmethod
    def _is_bare_super(node: ast.AST) -> bool:
        """``super()``: bound by Python to the method's own class and first argument."""
        return isinstance(node, ast.Call) and not node.args and not node.keywords

    # imports --------------------------------------------------------------------------
    def _refuse_import(self, node: ast.AST, name: str) -> None:
        self.refuse(node, f"import of {name!r} is not allowed; allowed modules: {_allowed_list()}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_MODULES:
                self._refuse_import(node, alias.name)
            self.check_name(node, alias.asname, "name")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__" and not node.level:
            import __future__

            for alias in node.names:
                if alias.name not in __future__.all_feature_names or alias.asname is not None:
                    self.refuse(
                        node,
                        "only `from __future__ import <feature>` is allowed (features: "
                        + ", ".join(__future__.all_feature_names)
                        + "), without `as`",
                    )
            return  # a compiler directive (scripts often start with one); harmless
        if node.level or node.module not in ALLOWED_MODULES:
            self._refuse_import(node, "." * node.level + (node.module or ""))
        # The agent module's names are checked by the agent process's import (below): its
        # copies of the other modules are only built here when an import needs them.
        public = frozenset() if node.module == AGENT_MODULE else self.public_names(node.module or "")
        for alias in node.names:
            if alias.name != "*" and alias.name.startswith("_"):
                self.refuse(node, f"cannot import private name {alias.name!r}")
            # The agent module's names are the API's, known to the agent process only: its
            # import checks them (never a fallback to sys.modules: there is no such module).
            if alias.name != "*" and alias.name not in public and node.module != AGENT_MODULE:
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
        self.count_code_object(node)
        if is_dunder(node.name):
            if not self.class_depth:
                self.refuse(node, f"defining {node.name!r} is not allowed outside a class body")
            if node.name in RAW_MEMORY_PROTOCOLS:
                self.refuse(node, raw_memory_protocol_refusal(node.name))
            if node.name in REFUSED_SPECIAL_METHODS:
                self.refuse(
                    node,
                    f"defining {node.name!r} is not allowed in the sandbox (it changes how classes "
                    "are built or checked); the other special methods (__init__, __repr__, __eq__, "
                    "__iadd__, __format__, __getattr__ ...) are allowed",
                )
        saved = self.class_depth
        self.class_depth = 0  # a nested function body is not a class body
        self.generic_visit(node)
        self.class_depth = saved

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.count_code_object(node)
        saved = self.class_depth
        self.class_depth = 0
        self.generic_visit(node)
        self.class_depth = saved

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.count_code_object(node)
        self.check_name(node, node.name, "class name")
        for kw in node.keywords:
            if kw.arg == "metaclass":
                self.refuse(node, "metaclasses are not allowed in the sandbox")
        saved = self.class_depth
        self.class_depth = 0  # decorators, bases and keywords are evaluated outside the body
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        self.class_depth = saved + 1
        for stmt in node.body:
            self.visit(stmt)
        self.class_depth = saved

    def _visit_comprehension_scope(self, node: ast.AST) -> None:
        self.count_code_object(node)
        saved = self.class_depth
        self.class_depth = 0
        self.generic_visit(node)
        self.class_depth = saved

    visit_ListComp = _visit_comprehension_scope
    visit_SetComp = _visit_comprehension_scope
    visit_DictComp = _visit_comprehension_scope
    visit_GeneratorExp = _visit_comprehension_scope

    def visit_arg(self, node: ast.arg) -> None:
        self.check_name(node, node.arg, "argument")
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self.check_name(node, node.arg, "keyword argument")
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:
        self.check_name(node, node.asname, "name")

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.check_name(node, name, "name")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self.check_name(node, name, "name")

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.check_name(node, node.name, "name")
        self.generic_visit(node)

    # pattern matching reads attributes by keyword (``case C(__class__=x)``)
    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            if is_dunder(attr) or attr in ("format", "format_map"):
                self.refuse(node, f"the pattern attribute {attr!r} is not allowed in the sandbox")
            if is_private(attr):
                self.refuse(node, f"the pattern attribute {attr!r} is not allowed: {private_refusal(attr)}")
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


def check_tree(tree: ast.AST, public_names: Callable[[str], frozenset[str]] | None = None) -> None:
    """Apply the sandbox policy (MECHANICS §16) to a parsed agent module.

    Args:
        tree: The module as returned by :func:`ast.parse`.
        public_names: Public names of the agent's copy of a module (for ``from X import
            Y``); default :func:`module_public_names`.

    Raises:
        SandboxViolation: At the first refused construct, with its line.
    """
    _PolicyChecker(public_names or module_public_names).visit(tree)


def parse_agent_code(
    code: str,
    filename: str = "<stdin>",
    first_line: int = 1,
    *,
    static_check: bool = True,
) -> ast.Module:
    """Parse agent code, check it against the policy and shift its line numbers.

    Args:
        code: Agent Python source.
        filename: Name shown in errors (``<stdin>`` for piped text).
        first_line: Line number of the first line of ``code`` in the agent's text
            (1-based), so errors point into the agent's own text.
        static_check: Apply the policy (``False`` only in tests proving that the OS layer
            holds alone; never reachable by agent code).

    Returns:
        The checked module, with line numbers already shifted by ``first_line - 1``.

    Raises:
        SyntaxError: ``code`` is not valid Python (line numbers shifted).
        SandboxViolation: ``code`` is valid but refused (line numbers shifted).
    """
    if code.startswith("\ufeff"):
        code = code[1:]  # a UTF-8 byte-order mark, as Python accepts in files
    if len(code) > MAX_SOURCE_CHARS:
        raise SandboxViolation(f"block too long: {len(code):,} characters (limit {MAX_SOURCE_CHARS:,})", first_line)
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
    if static_check:
        try:
            check_tree(tree)
        except RecursionError:
            raise SandboxViolation("code too deeply nested to check", first_line) from None
    return tree


#: The compiler flags agent code is compiled with: ``from __future__ import annotations``
#: (annotations are not evaluated), as when the agent process compiled it itself.
COMPILE_FLAGS: int = __future__.annotations.compiler_flag


def compile_agent_code(
    code: str,
    filename: str = "<stdin>",
    first_line: int = 1,
    *,
    static_check: bool = True,
) -> list[tuple[Any, ...]]:
    """Parse, check (:func:`parse_agent_code`) and compile a block of agent code into the
    units the agent process runs one after the other (child.py ``_Runtime.run``).

    Top-level bare expressions print their ``repr``, so each is a unit of its own;
    consecutive other statements are compiled together (the same as one by one: the parse
    succeeded, and a ``__future__`` import, which would reach the statements after it, makes
    every statement a unit of its own). A group that does not compile (``return`` outside a
    function ...) is compiled statement by statement, so those before the one in error run
    first, as if each had been compiled alone.

    Args:
        code: Agent Python source.
        filename: Name of the agent's text in errors and tracebacks.
        first_line: Line of the block's first line in the agent's text (1-based).
        static_check: Apply the policy (see :func:`parse_agent_code`) and route attribute
            reads and ``match`` statements through the runtime checks; ``False`` (tests of
            the OS layer alone) compiles the code as it is.

    Returns:
        ``[("eval", code object) | ("exec", code object) | ("error", {"type", "message",
        "line"}), ...]``: an ``"error"`` unit is a statement that does not compile; the
        block stops there with that error.

    Raises:
        SyntaxError: ``code`` is not valid Python (line numbers shifted).
        SandboxViolation: ``code`` is valid but refused (line numbers shifted).
    """
    tree = parse_agent_code(code, filename, first_line, static_check=static_check)
    if static_check:  # off: the tests that prove the OS layer holds alone run the code as it is
        if "match" in code:  # a soft keyword: without the word, no match statement
            guard_matches(tree)  # first: the names it evaluates are rewritten next
        if "." in code:  # every attribute read is spelled with a dot
            rewrite_checked_attributes(tree)
    body = tree.body
    alone = any(isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" for stmt in body)
    units: list[tuple[Any, ...]] = []
    i, n = 0, len(body)
    while i < n:
        stmt = body[i]
        if isinstance(stmt, ast.Expr):
            units.append(_compiled("eval", ast.Expression(stmt.value), filename, stmt))
            i += 1
            continue
        j = i + 1
        while not alone and j < n and not isinstance(body[j], ast.Expr):
            j += 1
        group = _compiled("exec", ast.Module(body[i:j], type_ignores=[]), filename, stmt) if j - i > 1 else None
        if group is not None and group[0] != "error":
            units.append(group)
        else:
            units.extend(_compiled("exec", ast.Module([one], type_ignores=[]), filename, one) for one in body[i:j])
        i = j
    return units


def _compiled(mode: str, node: ast.Module | ast.Expression, filename: str, stmt: ast.stmt) -> tuple[Any, ...]:
    """``(mode, code object)``, or ``("error", {"type", "message", "line"})`` when ``node``
    does not compile (``stmt``: its first statement, for the line)."""
    try:
        return (mode, compile(node, filename, mode, flags=COMPILE_FLAGS, dont_inherit=True))
    except SyntaxError as exc:
        return ("error", {"type": "SyntaxError", "message": str(exc.msg), "line": exc.lineno})
    except (ValueError, MemoryError, RecursionError) as exc:  # too deep, too large
        return ("error", {"type": type(exc).__name__, "message": str(exc), "line": getattr(stmt, "lineno", None)})


def check_source(code: str, filename: str = "<stdin>", first_line: int = 1) -> str | None:
    """Return why agent code is refused (syntax or policy), or ``None`` if it may run.

    Args:
        code: Agent Python source.
        filename: Name used for syntax errors.
        first_line: Line of ``code``'s first line in the agent's text (1-based).

    Returns:
        ``None`` when the code passes; else a one-line message such as
        ``"line 3: SandboxError: import of 'os' is not allowed; allowed modules: ..."``.
    """
    try:
        parse_agent_code(code, filename, first_line)
    except SyntaxError as exc:
        return f"line {exc.lineno}: SyntaxError: {exc.msg}"
    except SandboxViolation as exc:
        return f"line {exc.line}: SandboxError: {exc.message}"
    return None


def _attribute_helper(name: str) -> str:
    """The runtime helper a read of the attribute ``name`` goes through."""
    return CHECKED_ATTRIBUTE_HELPER if name in CHECKED_ATTRIBUTES or is_private(name) else PUBLIC_ATTRIBUTE_HELPER


def _helper_call(helper: str, args: list[ast.expr], where: ast.AST) -> ast.Call:
    """``helper(*args)``, every node at the location of ``where``."""
    func = ast.copy_location(ast.Name(id=helper, ctx=ast.Load()), where)
    return ast.copy_location(ast.Call(func=func, args=args, keywords=[]), where)


def _mangled(name: str, klass: str | None) -> str:
    """``name`` as Python spells it inside the class ``klass`` (``self.__x`` in class ``C``
    reads ``_C__x``): the helpers take the name as a string, which the compiler no longer
    mangles."""
    if klass is None or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = klass.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def _read_through_helper(value: ast.expr, name: str, where: ast.AST, klass: str | None = None) -> ast.Call:
    """``helper(value, "name")``: the read of ``value.name`` through its runtime helper
    (``name`` mangled as inside the class ``klass``)."""
    name = _mangled(name, klass)
    return _helper_call(_attribute_helper(name), [value, ast.copy_location(ast.Constant(name), where)], where)


def _inplace_attribute(node: ast.AugAssign, klass: str | None) -> list[ast.stmt]:
    """``t.a op= v`` as statements whose read of ``t.a`` goes through the attribute helpers
    (Python's own reads it without: a module found there would reach the operand's
    reflected method, ``__radd__``), in Python's order: ``t``, ``t.a``, ``v``, the
    operation, the store. ``t`` other than a name is evaluated once, into
    :data:`INPLACE_TARGET` (deleted after)."""
    target = node.target
    assert isinstance(target, ast.Attribute)
    op = ast.copy_location(ast.Constant(INPLACE_OPERATORS[type(node.op)]), node)
    before: list[ast.stmt] = []
    after: list[ast.stmt] = []
    holder = target.value
    if not isinstance(holder, ast.Name):
        temp = ast.copy_location(ast.Name(id=INPLACE_TARGET, ctx=ast.Store()), node)
        before.append(ast.copy_location(ast.Assign(targets=[temp], value=holder), node))
        holder = ast.copy_location(ast.Name(id=INPLACE_TARGET, ctx=ast.Load()), node)
        gone = ast.copy_location(ast.Name(id=INPLACE_TARGET, ctx=ast.Del()), node)
        after.append(ast.copy_location(ast.Delete(targets=[gone]), node))
    read_from = ast.copy_location(ast.Name(id=holder.id, ctx=ast.Load()), holder)
    read = _read_through_helper(read_from, target.attr, target, klass)
    value = _helper_call(INPLACE_HELPER, [read, op, node.value], node)
    store = ast.copy_location(ast.Attribute(value=holder, attr=target.attr, ctx=ast.Store()), target)
    return [*before, ast.copy_location(ast.Assign(targets=[store], value=value), node), *after]


def _route_checked_attributes(node: ast.AST, klass: str | None = None) -> ast.AST | list[ast.stmt]:
    """Rewrite ``node``'s subtree in place (children first, as :class:`ast.NodeTransformer`
    does); return what replaces ``node``: for a read of ``x.name``, ``helper(x, "name")``
    (:data:`CHECKED_ATTRIBUTE_HELPER` for a name of :data:`CHECKED_ATTRIBUTES` or a private
    one, else :data:`PUBLIC_ATTRIBUTE_HELPER`); for ``x.name op= v`` the statements of
    :func:`_inplace_attribute`; else ``node`` itself. Patterns are left as they are (they
    hold no calls; :class:`_MatchGuard` evaluates their names first). ``klass``: the class
    whose body (or method) ``node`` is in, for private names (:func:`_mangled`)."""
    for name in node._fields:
        if name == "pattern" and isinstance(node, ast.match_case):
            continue
        inner = node.name if isinstance(node, ast.ClassDef) and name == "body" else klass
        try:
            value = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(value, list):
            spliced = False
            out: list[Any] = []
            for item in value:
                if isinstance(item, ast.AST) and not isinstance(item, _LEAF_NODES):
                    item = _route_checked_attributes(item, inner)
                if isinstance(item, list):
                    out.extend(item)
                    spliced = True
                else:
                    out.append(item)
            if spliced:
                setattr(node, name, out)
            else:
                value[:] = out
        elif isinstance(value, ast.AST) and not isinstance(value, _LEAF_NODES):
            setattr(node, name, _route_checked_attributes(value, inner))
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return _read_through_helper(node.value, node.attr, node, klass)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
        return _inplace_attribute(node, klass)
    return node


def may_read_checked_attributes(code: str) -> bool:
    """Whether ``code`` may read an attribute of :data:`CHECKED_ATTRIBUTES` or a private one (so that
    :func:`rewrite_checked_attributes` has something to do): an attribute name made of ASCII
    characters is written out as it is; a non-ASCII character that may be part of a name
    (identifiers are NFKC-normalised: ``ｆormat`` is ``format``) makes it always may.
    Other non-ASCII characters (``§`` in a comment, ``—`` in a string) never spell a name."""
    if "_" in code or any(name in code for name in CHECKED_ATTRIBUTES):
        return True  # any "_" may start a private attribute name (x._y, x . _y)
    if code.isascii():
        return False
    return any(_may_spell_a_name(ch) for ch in set(_NON_ASCII.findall(code)))


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _may_spell_a_name(ch: str) -> bool:
    """Whether the character ``ch`` may be part of a name, itself or once NFKC-normalised
    (as the parser normalises names: ``ﬁ`` is ``fi``)."""
    return any(("a" + c).isidentifier() for c in ch + unicodedata.normalize("NFKC", ch))


class _MatchGuard(ast.NodeTransformer):
    """Put ``__pibench_case__ = __pibench_match__(C1, p1, k1, ..., values=(v1, ...))`` before
    every ``match`` statement with class or value patterns, and make its patterns read
    ``__pibench_case__.c0`` ... and ``__pibench_case__.v0`` ... instead: ``C`` is a class
    pattern's class, ``p``/``k`` the number of its positional and keyword subpatterns, ``v``
    a value pattern's dotted name. A class pattern reads attributes of the subject without
    the attribute rule (keyword subpatterns by name, positional ones by ``__match_args__``),
    and a value pattern's name is read without the attribute helpers, so the runtime checks
    both first (the call's own arguments go through the helpers like any other code) and
    hands back what it checked: each name is evaluated once, so a property cannot give the
    check one class and the match another (QA pass 4, F2)."""

    def visit_Match(self, node: ast.Match) -> Any:
        self.generic_visit(node)
        args: list[ast.expr] = []
        values: list[ast.expr] = []
        for case in node.cases:
            for p in ast.walk(case.pattern):
                if isinstance(p, ast.MatchClass):
                    args.append(_as_load(p.cls))
                    args.append(ast.copy_location(ast.Constant(len(p.patterns)), p))
                    args.append(ast.copy_location(ast.Constant(len(p.kwd_patterns)), p))
                    p.cls = _held(f"c{len(args) // 3 - 1}", p.cls)
                elif isinstance(p, ast.MatchValue) and isinstance(p.value, ast.Attribute):
                    values.append(_as_load(p.value))
                    p.value = _held(f"v{len(values) - 1}", p.value)
        if not args and not values:
            return node
        helper = ast.copy_location(ast.Name(id=MATCH_CHECK_HELPER, ctx=ast.Load()), node)
        keywords = []
        if values:
            tuple_node = ast.copy_location(ast.Tuple(elts=values, ctx=ast.Load()), node)
            keywords.append(ast.copy_location(ast.keyword(arg="values", value=tuple_node), node))
        holder = ast.copy_location(ast.Name(id=MATCH_CASE_HOLDER, ctx=ast.Store()), node)
        call = ast.copy_location(ast.Call(helper, args, keywords), node)
        return [ast.copy_location(ast.Assign(targets=[holder], value=call), node), node]


def _held(field: str, where: ast.expr) -> ast.expr:
    """``__pibench_case__.<field>``: a pattern's checked class or value (a dotted name, as
    a pattern requires)."""
    holder = ast.copy_location(ast.Name(id=MATCH_CASE_HOLDER, ctx=ast.Load()), where)
    return ast.copy_location(ast.Attribute(value=holder, attr=field, ctx=ast.Load()), where)


def _as_load(node: ast.expr) -> ast.expr:
    """A copy of a pattern's class reference (a name or dotted name) as an expression."""
    import copy

    out = copy.deepcopy(node)
    for n in ast.walk(out):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return out


def guard_matches(tree: ast.Module) -> ast.Module:
    """Check every ``match`` statement's pattern classes at run time (in place; returns
    ``tree``): see :class:`_MatchGuard`."""
    return ast.fix_missing_locations(_MatchGuard().visit(tree))


def library_class(cls: type) -> bool:
    """Whether ``cls`` is a class of a loaded module, found there under its own name (a class
    made at run time, whatever ``__module__`` it claims, is not)."""
    module = sys.modules.get(str(type.__dict__["__module__"].__get__(cls)))
    found: Any = module
    for part in str(type.__dict__["__qualname__"].__get__(cls)).split("."):
        found = vars(found).get(part) if found is not None and hasattr(found, "__dict__") else None
    return found is cls


def class_statement_refusal(name: str, bases: tuple[Any, ...]) -> str | None:
    """Why a ``class`` statement named ``name`` with ``bases`` may not run, or ``None``.
    Every metaclass its bases bring (theirs and their own bases) must be ``type`` or a
    library's (``ABCMeta``, ``EnumType`` ...): a metaclass made at run time (three-argument
    ``type()`` of a subclass of ``type``) could give the class body a namespace whose
    lookups answer the runtime helpers' names themselves (QA pass 4). A base that is not a
    class is resolved by its ``__mro_entries__``, which must be a library's
    (``typing.Generic[T]``), so that the bases checked are the bases the class gets."""
    resolved: list[Any] = []
    for base in bases:
        if isinstance(base, type):
            resolved.append(base)
            continue
        if _made_at_run_time(type(base)) or not _library_mro_entries(base):
            return (
                f"class {name!r}: a base that is not a class must be a library's (typing.NamedTuple, "
                "Generic[T] ...) in the sandbox"
            )
        entries = getattr(base, "__mro_entries__", None)  # typing.NamedTuple, Generic[T] ...
        resolved.extend(entries(bases) if entries is not None else (base,))
    for base in resolved:
        meta = type(base)
        if meta is not type and _made_at_run_time(meta):
            return (
                f"class {name!r}: metaclasses are not allowed in the sandbox (a base's metaclass "
                f"{type.__dict__['__name__'].__get__(meta)!r} was made at run time)"
            )
    return None


def _library_mro_entries(base: Any) -> bool:
    """Whether the non-class ``base``'s ``__mro_entries__`` (what Python calls to turn it
    into bases: once here, once when the class is made) is a library's: a method of its
    library type not overridden in its own ``__dict__`` (``Generic[T]``), or ``base`` is
    itself a library object found in its module under its own name (``typing.NamedTuple``).
    An entry copied into a ``functools.partial``'s dict by ``update_wrapper`` could answer
    the check one way and the class statement another (QA pass 4)."""
    own = getattr(base, "__dict__", None)  # the type of base is not made at run time (checked first)
    if isinstance(own, dict) and "__mro_entries__" in own:
        return isinstance(base, types.FunctionType) and _library_function(base)
    return any(
        "__mro_entries__" in type.__dict__["__dict__"].__get__(k) for k in type.__dict__["__mro__"].__get__(type(base))
    )


def _library_function(f: types.FunctionType) -> bool:
    """Whether the function ``f`` is found in its module under its own name."""
    found: Any = sys.modules.get(str(types.FunctionType.__dict__["__module__"].__get__(f)))
    for part in str(types.FunctionType.__dict__["__qualname__"].__get__(f)).split("."):
        found = vars(found).get(part) if found is not None and hasattr(found, "__dict__") else None
    return found is f


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type(), not built in C


def _made_at_run_time(kind: type) -> bool:
    """Whether ``kind`` or a class of its MRO was made at run time rather than by a library
    (a built-in type, or a class found in its module under its own name)."""
    for k in type.__dict__["__mro__"].__get__(kind):
        if type.__dict__["__flags__"].__get__(k) & _HEAP_TYPE and not library_class(k):
            return True
    return False


def match_args_refusal(cls: Any, agent_class: bool) -> str | None:
    """Why the class ``cls`` may not be used in a class pattern, or ``None``: its
    ``__match_args__`` must be a tuple of names the attribute rule allows (private names
    only on agent code's own class) found in the class's own namespaces, and neither its
    metaclass nor anything between may compute attributes (``__getattribute__``,
    ``__getattr__``, a ``__match_args__`` of its own): what the check read is then what the
    match reads."""
    if not isinstance(cls, type):
        return None  # Python raises TypeError for a class pattern of a non-class
    for meta in type.__dict__["__mro__"].__get__(type(cls)):
        if meta is type or meta is object or library_class(meta):
            continue  # type, ABCMeta, EnumType ...: their isinstance and lookups are the library's
        d = type.__dict__["__dict__"].__get__(meta)
        for name in ("__getattribute__", "__getattr__", "__match_args__", "__instancecheck__"):
            if name in d:
                return f"class {cls.__name__!r}: its metaclass defines {name}; it cannot be a pattern in the sandbox"
    args = match_args(cls)
    if type(args) is not tuple or any(type(name) is not str for name in args):
        return f"class {cls.__name__!r}: __match_args__ must be a tuple of attribute names (str)"
    for name in args:
        why = attribute_refusal(name)
        if why is None and isinstance(name, str) and is_private(name) and not agent_class:
            why = private_refusal(name)
        if why is not None:
            return f"class {cls.__name__!r} in a pattern: {why}"
    return None


def match_args(cls: type) -> Any:
    """``cls.__match_args__`` as a class pattern reads it, found in the class's own
    namespaces (no metaclass lookup); ``()`` when none defines it."""
    for k in type.__dict__["__mro__"].__get__(cls):
        d = type.__dict__["__dict__"].__get__(k)
        if "__match_args__" in d:
            return d["__match_args__"]
    return ()


#: Built-in classes whose class pattern with one positional subpattern matches the subject
#: itself (``case int(n)``), reading no attribute.
MATCH_SELF_CLASSES: tuple[type, ...] = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def pattern_reads_attributes(cls: Any, positional: int, keywords: int) -> bool:
    """Whether a class pattern of ``cls`` with ``positional`` and ``keywords`` subpatterns
    reads attributes of its subject (any keyword subpattern; positional ones, except the
    one of ``int(n)``-like built-ins)."""
    if not isinstance(cls, type):
        return False
    return keywords > 0 or (positional > 0 and not (positional == 1 and cls in MATCH_SELF_CLASSES))


def pattern_attributes_refusal(cls: Any, positional: int, keywords: int, agent_class: bool) -> str | None:
    """Why a class pattern of ``cls`` with ``positional`` and ``keywords`` subpatterns may
    not run, or ``None``. A pattern that reads attributes of its subject (any keyword
    subpattern; positional ones, except the one of ``int(n)``-like built-ins) does so
    without the attribute helpers, so it may only be of a class agent code defined (its
    instances hold what agent code put there): ``case object(os=m)`` on a library object
    would hand out whatever it holds, a real module included."""
    if not isinstance(cls, type):
        return None  # Python raises TypeError for a class pattern of a non-class
    if pattern_reads_attributes(cls, positional, keywords) and not agent_class:
        return (
            f"class pattern {cls.__name__}(...) with subpatterns reads attributes of the subject; in the "
            "sandbox only classes your code defines may have them (match a library object with "
            "isinstance() and read its attributes in the case body)"
        )
    return None


def rewrite_checked_attributes(tree: ast.Module) -> ast.Module:
    """Route the attribute reads of :data:`CHECKED_ATTRIBUTES` through the runtime check
    (in place; returns ``tree``). Every node it makes carries the location of the read it
    replaces."""
    _route_checked_attributes(tree)
    return tree


# --------------------------------------------------------------------------------------
# Module copies
# --------------------------------------------------------------------------------------


class SandboxError(AttributeError):
    """Raised in the agent process when agent code reaches for something the sandbox
    refuses at run time (a dunder attribute by a computed name, a file helper of numpy,
    ...). An ``AttributeError``, so ``getattr(obj, name, default)`` and ``hasattr`` keep
    their meaning."""


def sandbox_module_name(name: str) -> str:
    """The ``__name__`` of the agent's copy of the allowed module ``name``.

    It is never a prefix of a key of ``sys.modules``: when ``from X import Y`` does not
    find ``Y`` on the copy, CPython's IMPORT_FROM looks up ``sys.modules[X.__name__ + "."
    + Y]``, which with the real name would hand out the real submodule (``json.decoder``,
    and from there ``re``, ``enum``, ``sys``).
    """
    return f"{name} (sandbox copy)"


#: Names of the ``sys`` stand-in (``stdout``/``stderr`` are the agent process's own
#: output streams, set by the runtime).
SYS_NAMES: tuple[str, ...] = (
    "stdout",
    "stderr",
    "maxsize",
    "float_info",
    "int_info",
    "version_info",
    "version",
    "hexversion",
    "byteorder",
    "platform",
    "argv",
    "exit",
    "getrecursionlimit",
)

#: Modules agent code must never reach (their objects are never put in a copy).
_SYSTEM_MODULE_NAMES = ("sys", "os", "io", "builtins", "importlib", "subprocess", "socket", "ctypes")

#: Modules whose own classes count as system objects (``io.FileIO`` is ``_io``'s).
_SYSTEM_HOMES = frozenset((*_SYSTEM_MODULE_NAMES, "_io", "posix", "nt", "_socket", "_ctypes", "_thread", "_imp"))

_COPIES: dict[str, types.ModuleType] | None = None
_MISSING = object()


def _stub(module: str, name: str, why: str) -> Callable[..., Any]:
    def refused(*args: object, **kwargs: object) -> Any:
        raise SandboxError(f"{module}.{name} is not available in the sandbox: it {why}")

    refused.__name__ = name
    refused.__qualname__ = name
    refused.__doc__ = f"Not available in the sandbox: {module}.{name} {why}."
    return refused


def _system_ids() -> set[int]:
    import builtins

    ids: set[int] = set()
    for mod_name in _SYSTEM_MODULE_NAMES:
        mod = sys.modules.get(mod_name)
        if mod is None:
            continue
        ids.add(id(mod))
        if mod is builtins:
            continue
        for value in vars(mod).values():
            if isinstance(value, (int, float, str, bytes, bool, type(None), tuple, frozenset)):
                continue
            if isinstance(value, type) and getattr(value, "__module__", None) not in _SYSTEM_HOMES:
                continue  # a class os merely imports (collections.abc.Mapping), not one of its own
            ids.add(id(value))
    for name in (*BLOCKED_NAMES, "__import__", "getattr", "hasattr", "setattr", "delattr", "globals", "locals", "vars"):
        value = getattr(builtins, name, None)
        if value is not None:
            ids.add(id(value))
    return ids


def system_object_ids() -> set[int]:
    """``id()`` of the objects of the modules agent code must never reach (``os``, ``sys``,
    ``io``, ``ctypes`` ... as loaded in this process: their own functions, classes and
    objects) and of the builtins the sandbox replaces or refuses (``open``, the real
    ``getattr`` ...). The agent process refuses them as values of any attribute read."""
    return _system_ids()


def _copy_module(name: str, real: types.ModuleType, system: set[int]) -> types.ModuleType:
    copy = types.ModuleType(sandbox_module_name(name), getattr(real, "__doc__", None))
    stubs = STUBBED.get(name, {})
    omitted = OMITTED.get(name, frozenset())
    submodules = SUBMODULES.get(name, ())
    public = getattr(real, "__all__", None) or [k for k in vars(real) if not k.startswith("_")]
    for key in public:
        if not isinstance(key, str) or key.startswith("_") or key in omitted:
            continue
        if key in stubs:
            setattr(copy, key, _stub(name, key, stubs[key]))
            continue
        # vars(), not getattr(): a module's __getattr__ would import its lazy submodules.
        value = vars(real).get(key, _MISSING)
        if value is _MISSING:
            if key not in submodules:
                continue
            value = getattr(real, key)
        if isinstance(value, types.ModuleType):
            if key in submodules:
                setattr(copy, key, _copy_module(f"{name}.{key}", value, system))
            continue
        if id(value) in system:
            continue
        setattr(copy, key, value)
    for key in submodules:  # submodules missing from __all__ (collections.abc)
        if not hasattr(copy, key):
            import importlib

            try:
                sub = importlib.import_module(f"{real.__name__}.{key}")
            except ImportError:
                continue
            setattr(copy, key, _copy_module(f"{name}.{key}", sub, system))
    for key, why in stubs.items():  # stubs for names the real module lacks too
        if not hasattr(copy, key):
            setattr(copy, key, _stub(name, key, why))
    version = vars(real).get("__version__")
    if isinstance(version, str):  # np.__version__: agent code checks which numpy it has
        copy.__version__ = version  # type: ignore[attr-defined]
    return copy


def _sys_copy() -> types.ModuleType:
    copy = types.ModuleType(sandbox_module_name("sys"), "The sandbox's sys: output streams and constants.")
    for key in SYS_NAMES:
        value: Any = getattr(sys, key, None)
        if key in ("stdout", "stderr"):
            value = None  # set by the agent process's runtime
        elif key == "argv":
            value = ["agent"]
        setattr(copy, key, value)
    return copy


def module_copies() -> dict[str, types.ModuleType]:
    """Copies of the allowed modules, built once per process: public functions, classes
    and constants only; no submodules except :data:`SUBMODULES` (``json.codecs`` could
    open files, ``statistics.sys`` is ``sys``); nothing of ``sys``/``os``/``io``; the
    names of :data:`STUBBED` replaced by stubs that raise :class:`SandboxError`; ``sys``
    replaced by a stand-in. Every copy is named by :func:`sandbox_module_name`.

    A module that cannot be imported (numpy missing) is left out; importing it then says
    it is not available.

    Returns:
        ``{name: copy}`` for the names of :data:`ALLOWED_MODULES` (dotted names map to the
        copy held by their parent's copy).
    """
    global _COPIES
    if _COPIES is not None:
        return _COPIES
    import importlib

    system = _system_ids()
    copies: dict[str, types.ModuleType] = {}
    for name in ALLOWED_MODULES:
        if "." in name:
            continue
        if name == "sys":
            copies[name] = _sys_copy()
            continue
        try:
            real = importlib.import_module(name)
        except ImportError:
            continue
        copies[name] = _copy_module(name, real, system)
    for name in ALLOWED_MODULES:
        if "." in name:
            parent, _, child = name.partition(".")
            sub = getattr(copies.get(parent), child, None)
            if isinstance(sub, types.ModuleType):
                copies[name] = sub
    _COPIES = copies
    return copies


def module_public_names(name: str) -> frozenset[str]:
    """Public names of the agent's copy of the allowed module ``name`` (empty if none)."""
    copy = module_copies().get(name)
    if copy is None:
        return frozenset()
    return frozenset(k for k in vars(copy) if not k.startswith("_"))
