"""Insertions into ``unittest.TestCase`` methods, which take no pytest fixtures.

Every strategy writes its statements for a pytest test function, with ``monkeypatch``
and ``request`` as parameters. A ``TestCase`` method cannot take them, so the statements
are rewritten to what such a class has (:func:`adapt_statements`):

* ``monkeypatch`` becomes a local ``pytest.MonkeyPatch()`` whose ``undo`` is registered
  with ``self.addCleanup`` (``cls.addClassCleanup`` in ``setUpClass``), so the change
  still ends with the test (or the class);
* ``request.addfinalizer(f)`` becomes ``self.addCleanup(f)``;
* ``request.config.rootpath`` becomes the project root reached from ``__file__``.

A method can also be another one of the test's class: ``setUp`` (state its test reads
before the test body runs) or ``setUpClass`` (a polluter that writes the state there).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Optional

import libcst as cst

from orderdep.errors import UsageError

CLASS_METHODS = ("setUpClass", "tearDownClass")
_FINALIZER = re.compile(r"\brequest\.addfinalizer\(")
_ROOTPATH = re.compile(r"\brequest\.config\.rootpath\b")


def is_testcase(node: cst.ClassDef) -> bool:
    """Whether a class looks like a ``unittest.TestCase`` (a base named ``...TestCase``)."""
    for arg in node.bases:
        value = arg.value
        name = value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", "")
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


def testcase_methods(source: str, classes: Sequence[str]) -> Optional[set[str]]:
    """The methods the innermost of ``classes`` defines, if it is a ``TestCase``; else None."""
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
    if node is None or not is_testcase(node):
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
