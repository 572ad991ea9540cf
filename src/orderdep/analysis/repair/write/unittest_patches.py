"""Insertions into ``unittest.TestCase`` methods, which take no pytest fixtures.

Every strategy writes its statements for a pytest test function, with ``monkeypatch``
and ``request`` as parameters. A ``TestCase`` method cannot take them, so the statements
are rewritten to what such a class has (:func:`adapt_statements`):

* ``monkeypatch`` becomes a local ``pytest.MonkeyPatch()`` whose ``undo`` is registered
  with ``self.addCleanup`` (``cls.addClassCleanup`` in ``setUpClass``), so the change
  still ends with the test (or the class); one or two plain ``monkeypatch.setattr`` calls
  become what a TestCase writes without pytest, ``self.addCleanup(setattr, owner, name,
  old value)`` and the assignment;
* ``request.addfinalizer(f)`` becomes ``self.addCleanup(f)``;
* ``request.config.rootpath`` becomes the project root reached from ``__file__``.

A method can also be another one of the test's class: ``setUp`` (state its test reads
before the test body runs) or ``setUpClass`` (a polluter that writes the state there).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Optional

import libcst as cst

from orderdep.errors import UsageError

CLASS_METHODS = ("setUpClass", "tearDownClass")
_FINALIZER = re.compile(r"\brequest\.addfinalizer\(")
_ROOTPATH = re.compile(r"\brequest\.config\.rootpath\b")


def is_testcase(node: cst.ClassDef, plain: AbstractSet[str] = frozenset()) -> bool:
    """Whether a class looks like a ``unittest.TestCase`` (a base named ``...TestCase``,
    not one of the ``plain`` bases the project defines without a TestCase behind them:
    :func:`~.testcase_bases.plain_bases`)."""
    for arg in node.bases:
        value = arg.value
        name = value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", "")
        if isinstance(value, cst.Name) and name in plain:
            continue
        if isinstance(name, str) and name.endswith(("TestCase", "TestBase")):
            return True
    return False


def root_expression(rel_file: str) -> str:
    """The project root as seen from the test file ``rel_file`` (relative to it)."""
    depth = rel_file.count("/")
    return f"pathlib.Path(__file__).resolve().parents[{depth}]"


def adapt_statements(
    statements: Sequence[str], fixtures: Sequence[str], method: str, rel_file: str
) -> list[str]:
    """``statements`` written for a pytest function, rewritten for unittest ``method``."""
    unknown = [f for f in fixtures if f not in ("monkeypatch", "request")]
    if unknown:
        raise UsageError(
            f"a unittest method cannot take pytest fixture(s) {', '.join(unknown)}; "
            "only monkeypatch and request are rewritten for it"
        )
    owner = "cls" if method in CLASS_METHODS else "self"
    cleanup = f"{owner}.addClassCleanup(" if owner == "cls" else f"{owner}.addCleanup("
    imports = [s for s in statements if s.startswith(("import ", "from "))]
    body = [s for s in statements if s not in imports]
    head: list[str] = []
    plain = plain_setattrs(body, cleanup) if "monkeypatch" in fixtures else None
    if plain is not None:
        body, fixtures = plain, [f for f in fixtures if f != "monkeypatch"]
    if "monkeypatch" in fixtures:
        imports.append("import pytest")
        head += ["monkeypatch = pytest.MonkeyPatch()", f"{cleanup}monkeypatch.undo)"]
    out = []
    for text in body:
        text = _FINALIZER.sub(cleanup, text)
        if _ROOTPATH.search(text):
            text = _ROOTPATH.sub(root_expression(rel_file), text)
            imports.append("import pathlib")
        out.append(text)
    return [*dict.fromkeys(imports), *head, *out]


def _setattr_parts(text: str) -> Optional[tuple[str, str, str]]:
    """(owner, name, value) of ``monkeypatch.setattr(owner, 'name', value)``, else None."""
    try:
        stmt = cst.parse_statement(text)
    except cst.ParserSyntaxError:
        return None
    if not (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)):
        return None
    call = stmt.body[0].value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
        return None
    target = call.func
    if not (isinstance(target.value, cst.Name) and target.value.value == "monkeypatch"):
        return None
    if target.attr.value != "setattr" or len(call.args) != 3 or any(a.keyword for a in call.args):
        return None
    name = call.args[1].value
    if not isinstance(name, cst.SimpleString) or not str(name.evaluated_value).isidentifier():
        return None
    code = cst.Module([]).code_for_node
    return code(call.args[0].value), str(name.evaluated_value), code(call.args[2].value)


def plain_setattrs(body: Sequence[str], cleanup: str) -> Optional[list[str]]:
    """``body``'s ``monkeypatch`` calls as the two lines a TestCase writes without pytest,
    ``cleanup``'s ``setattr`` of the old value then the assignment (one line when the
    value is the old one: the change to undo is the test's own); None unless every use of
    ``monkeypatch`` is a plain three-argument ``setattr`` on a module or an object named in
    lower case (on a class, monkeypatch's own undo keeps a static or class method as it
    was), at most two of them (beyond, the ``MonkeyPatch`` object is the shorter)."""
    out: list[str] = []
    calls = 0
    for text in body:
        if "monkeypatch" not in text:
            out.append(text)
            continue
        parts = _setattr_parts(text)
        if parts is None:
            return None
        owner, name, value = parts
        if not owner.rsplit(".", 1)[-1][:1].islower():
            return None  # a class: monkeypatch keeps a static or class method as it was
        calls += 1
        old = f"{owner}.{name}"
        out.append(f"{cleanup}setattr, {owner}, {name!r}, {old})")
        if value != old:
            out.append(f"{old} = {value}")
    return out if 0 < calls <= 2 else None


def testcase_methods(
    source: str, classes: Sequence[str], plain: AbstractSet[str] = frozenset()
) -> Optional[set[str]]:
    """The methods the innermost of ``classes`` defines, if it is a ``TestCase`` (see
    :func:`is_testcase`); else None."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    body: Sequence[cst.BaseStatement] = module.body
    node: Optional[cst.ClassDef] = None
    for name in classes:
        found = [n for n in body if isinstance(n, cst.ClassDef) and n.name.value == name]
        if not found:
            return None
        node = found[0]
        inner = node.body
        body = inner.body if isinstance(inner, cst.IndentedBlock) else []
    if node is None or not is_testcase(node, plain):
        return None
    return {n.name.value for n in body if isinstance(n, cst.FunctionDef)}


def placements(source: str, classes: Sequence[str], polluter: bool) -> list[Optional[str]]:
    """Where statements for a test may go: its own method (None) first, then ``setUp``
    (state read or written before the body), then, for a polluter, ``setUpClass``."""
    methods = testcase_methods(source, classes)
    if methods is None:
        return [None]
    if polluter:  # several polluters of one class: once in its setUp (added if missing)
        return [None, "setUp", *(m for m in ("setUpClass",) if m in methods)]
    return [None, *(m for m in ("setUp",) if m in methods)]


class _AddSetUp(cst.CSTTransformer):
    def __init__(self, classes: Sequence[str]) -> None:
        self.classes: list[str] = list(classes)
        self.scope: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        here, self.scope = self.scope, self.scope[:-1]
        if here != self.classes or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        stmts = list(updated.body.body)
        at = 1 if stmts and is_docstring(stmts[0]) else 0
        method = cst.parse_statement("def setUp(self):\n    super().setUp()\n")
        if at:
            method = method.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        nxt = stmts[at] if at < len(stmts) else None
        lines = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        if isinstance(nxt, lines) and not nxt.leading_lines:
            stmts[at] = nxt.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        stmts.insert(at, method)
        return updated.with_changes(body=updated.body.with_changes(body=stmts))


def is_super_call(stmt: cst.BaseStatement) -> bool:
    """``super().name(...)`` alone on a line (a set-up method's first statement)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)):
        return False
    call = stmt.body[0].value
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Call)
        and isinstance(call.func.value.func, cst.Name)
        and call.func.value.func.value == "super"
    )


def is_docstring(stmt: cst.BaseStatement) -> bool:
    """Whether ``stmt`` is a docstring (a lone string statement); code goes after it."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def with_setup(source: str, classes: Sequence[str]) -> str:
    """``source`` with a ``setUp`` calling the base class's added first to the TestCase
    ``classes`` names, when it has none (statements for its tests then go there once)."""
    methods = testcase_methods(source, classes)
    if methods is None or "setUp" in methods:
        return source
    return cst.parse_module(source).visit(_AddSetUp(classes)).code
