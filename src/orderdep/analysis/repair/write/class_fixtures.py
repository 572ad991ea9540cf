"""An autouse fixture as a method of a pytest test class: it runs before each test of
that class only (a module-level one would run before every test of the module).

    class TestOrders:
        @pytest.fixture(autouse=True)
        def _clean_up_before_each_test(self, monkeypatch):
            # Clean up before each test of this class ...
            ...

It goes first in the class body (after a docstring), so it reads before the tests it
serves; the method after it keeps a blank line between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import libcst as cst

from orderdep.analysis.repair.write.fixture_patches import AUTOUSE, comment_lines
from orderdep.analysis.repair.write.import_lifting import add_imports
from orderdep.analysis.repair.write.statements import function_body
from orderdep.analysis.repair.write.unittest_patches import is_docstring
from orderdep.errors import UsageError


def _method(
    name: str, statements: Sequence[str], fixtures: Sequence[str], comment: Optional[str],
    depth: int,
) -> cst.FunctionDef:  # fmt: skip
    text = f"{AUTOUSE}\ndef {name}({', '.join(['self', *fixtures])}):\n    pass\n"
    fn = cst.parse_statement(text)
    assert isinstance(fn, cst.FunctionDef)
    return fn.with_changes(body=function_body(statements, comment_lines(comment, 4 * (depth + 1))))


class _AddMethod(cst.CSTTransformer):
    def __init__(self, classes: Sequence[str], method: cst.FunctionDef) -> None:
        self.classes, self.method = list(classes), method
        self.path: list[str] = []
        self.added = 0

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.path.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        here, self.path = self.path, self.path[:-1]
        if here != self.classes or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body = list(updated.body.body)
        at = 1 if body and is_docstring(body[0]) else 0
        nxt = body[at] if at < len(body) else None
        statement = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        if isinstance(nxt, statement) and not nxt.leading_lines:
            body[at] = nxt.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        method = self.method.with_changes(leading_lines=[cst.EmptyLine(indent=False)] if at else [])
        body.insert(at, method)
        self.added += 1
        return updated.with_changes(body=updated.body.with_changes(body=body))


def has_method(source: str, classes: Sequence[str], name: str) -> bool:
    """Whether the class ``classes`` (outermost first) of ``source`` defines ``name``."""
    body: Sequence[cst.BaseStatement] = cst.parse_module(source).body
    for cls in classes:
        found = [s for s in body if isinstance(s, cst.ClassDef) and s.name.value == cls]
        if not found or not isinstance(found[0].body, cst.IndentedBlock):
            return False
        body = found[0].body.body
    return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in body)


def add_class_fixture(
    source: str,
    classes: Sequence[str],
    name: str,
    statements: Sequence[str],
    fixtures: Sequence[str],
    comment: Optional[str],
    lifted: Sequence[str],
) -> str:
    """``source`` with an autouse fixture method ``name`` running ``statements`` first in
    the class ``classes``; its imports ``lifted`` go to the top of the file."""
    method = _method(name, statements, fixtures, comment, len(classes))
    adder = _AddMethod(classes, method)
    module = cst.parse_module(source).visit(adder)
    if not adder.added:
        raise UsageError(f"cannot find class {'.'.join(classes)!r} to add fixture {name!r} to")
    return add_imports(module, ["import pytest", *lifted]).code
