"""The static check and the attribute rewrite walk agent code quickly (issue 9 §3) and
still reach every node: the same nodes as Python's own ast.NodeVisitor, the same rewritten
tree as ast.NodeTransformer with fix_missing_locations."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pibench_tui.sandbox import policy

ROOT = Path(__file__).resolve().parents[2]

SNIPPETS = [
    "x = 'a{}'.format(1)\ny = o.__dict__\nz = t.format_map(d)\n",
    "class A(B, metaclass=None if 0 else type):\n    def f(self):\n        return super().__dict__, '{}'.format_map(d)\n",
    "match v:\n    case {'a': [1, *rest]} if rest:\n        pass\n    case P(x=1, y=q.r):\n        pass\n",
    "f = lambda a, *b, c=1, **d: [i.format for i in a if i] + {k: v.__dict__ for k, v in d.items()}\n",
    "try:\n    pass\nexcept (E, F) as e:\n    del x.y\nelse:\n    a.format = 1\nfinally:\n    g = (x async for x in y)\n",
    "async def h():\n    async with a as b:\n        await c.format(d)\n    global q\n",
    "import math, json as j\nfrom collections import deque\nx: int = -a ** ~b < c is not d and not e\n",
    "class K:\n    def f(self):\n        self.__n += 1\n        a[i].b.c -= self._k\n        return self.__n\n",
]


def corpus() -> list[str]:
    texts = list(SNIPPETS)
    for path in sorted((ROOT / "examples").rglob("*.py")):
        texts.append(path.read_text())
    return texts


class _Recording(policy._PolicyChecker):
    """The checker, noting every node it visits (its rules switched off)."""

    def __init__(self) -> None:
        super().__init__(lambda name: frozenset())
        self.seen: set[int] = set()

    def visit(self, node: ast.AST) -> None:
        self.seen.add(id(node))
        super().generic_visit(node)


class _Reference(ast.NodeTransformer):
    """The rewrite as it was written with ast.NodeTransformer: every attribute read through
    its helper (names mangled in class bodies), augmented attribute assignments as
    policy._inplace_attribute makes them, patterns left alone."""

    def __init__(self) -> None:
        self.klass: str | None = None

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        saved, self.klass = self.klass, node.name
        body: list[ast.stmt] = []
        for stmt in node.body:
            out = self.visit(stmt)
            body.extend(out if isinstance(out, list) else [out])
        node.body = body
        self.klass = saved
        return node

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        if node.guard is not None:
            node.guard = self.visit(node.guard)
        body: list[ast.stmt] = []
        for stmt in node.body:
            out = self.visit(stmt)
            body.extend(out if isinstance(out, list) else [out])
        node.body = body
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if isinstance(node.target, ast.Attribute):
            return policy._inplace_attribute(node, self.klass)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            name = policy._mangled(node.attr, self.klass)
            call = ast.Call(
                func=ast.Name(id=policy._attribute_helper(name), ctx=ast.Load()),
                args=[node.value, ast.Constant(name)],
                keywords=[],
            )
            return ast.copy_location(call, node)
        return node


@pytest.mark.parametrize("text", corpus())
def test_the_check_visits_every_node_python_would(text):
    """Every node of agent code but contexts and operators (no fields, no rule) is visited
    by the static check's walk: nothing is skipped that a rule could apply to."""
    tree = ast.parse(text)
    walker = _Recording()
    walker.visit(tree)
    expected = {id(n) for n in ast.walk(tree) if not isinstance(n, policy._LEAF_NODES)}
    assert walker.seen == expected


@pytest.mark.parametrize("text", corpus())
def test_the_attribute_rewrite_equals_the_node_transformer(text):
    """The rewritten tree, locations included, is the one NodeTransformer and
    fix_missing_locations give, and it compiles."""
    ours = policy.rewrite_checked_attributes(ast.parse(text))
    reference = ast.fix_missing_locations(_Reference().visit(ast.parse(text)))
    assert ast.dump(ours, include_attributes=True) == ast.dump(reference, include_attributes=True)
    compile(ours, "<agent>", "exec")


def test_a_block_with_too_many_code_objects_is_refused_before_the_parent_compiles_it():
    """The parent compiles every block outside the block's wall clock, and CPython compiles
    many functions of one scope in quadratic time: a block may define at most
    MAX_CODE_OBJECTS functions, lambdas, classes and comprehensions, counted at any depth,
    and is refused past that with a message naming the limit; at the limit it compiles."""
    limit = policy.MAX_CODE_OBJECTS
    kinds = ["def f():\n    pass\n", "g = lambda: 0\n", "class C:\n    pass\n", "x = [a for a in b]\n"]
    at_limit = "".join(kinds[i % 4] for i in range(limit))
    assert policy.compile_agent_code(at_limit)  # the limit itself is allowed
    nested = "def outer():\n" + "    y = lambda: 0\n" * limit  # one more, inside a function
    for text in (at_limit + "h = (a for a in b)\n", nested):
        with pytest.raises(policy.SandboxViolation) as err:
            policy.compile_agent_code(text)
        assert f"at most {limit:,} functions" in err.value.message
    example = (ROOT / "examples" / "agents" / "baseline.py").read_text()
    assert policy.check_source(example) is None
