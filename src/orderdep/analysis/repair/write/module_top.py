"""Statements a patch puts at a test module's top level, right after its imports.

A test that fails as ``pytest FILE`` because its file lacks what another module does at
import (a ``sys.path`` insert, the import of a module that registers a class) is fixed in
its own file, at module level: the statement runs when pytest imports the file, before
any of its tests, however the suite is collected. Imports of the standard library the
statements need join the file's import block in isort's order
(:func:`~.import_lifting.add_imports`); the other statements (the import of a module
whose import-time code the tests need among them) go under one comment where they can
run first (:func:`_place`): after the imports whose names they read, before the file's
imports beyond the standard library and pytest (which a ``sys.path`` insert may be
for), else right after the block. A
statement the file already has at top level is not written again, so applying the patch
twice changes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Optional

import libcst as cst

from orderdep.analysis.repair.write.fixture_patches import comment_lines
from orderdep.analysis.repair.write.import_lifting import (
    add_imports,
    import_block,
    liftable,
    plain_import,
)
from orderdep.analysis.repair.write.statements import parse_statements
from orderdep.errors import UsageError


def _code(stmt: cst.BaseStatement) -> str:
    """A statement's code without the comment lines and blank lines above it."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        stmt = stmt.with_changes(leading_lines=[])
    return cst.Module([]).code_for_node(stmt).strip()


def _is_import(code: str) -> bool:
    stmt = cst.parse_statement(code.strip())
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(
        stmt.body[0], (cst.Import, cst.ImportFrom)
    )


def add_module_statements(
    source: str,
    statements: Sequence[str],
    comment: Optional[str],
    file: str,
    double: bool = False,
) -> str:
    """``source`` (the text of ``file``) with ``statements`` at its top level: imports of
    the standard library in its import block, the others where they run first
    (:func:`_place`) with ``comment`` above them (strings in double quotes with
    ``double``, as the file writes them)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise UsageError(f"cannot parse {file!r}: {exc}") from None
    have = {_code(s) for s in module.body}
    imports = [s for s in statements if _is_import(s) and liftable(s.strip(), module)]
    module = add_imports(module, imports)
    rest = [s for s in statements if s not in imports]
    new = [s for s in parse_statements(rest, double) if _code(s) not in have]
    if not new:
        return module.code
    first = new[0]
    if comment and isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        blank = [cst.EmptyLine()] if import_block(module.body)[1] else []
        new[0] = first.with_changes(leading_lines=[*blank, *comment_lines(comment)])
    body: list[cst.BaseStatement] = list(module.body)
    at = _place(body, rest)
    body[at:at] = new  # what followed keeps the blank lines above it
    return module.with_changes(body=body).code


def _names(code: str, ctx: type) -> set[str]:
    """The names ``code`` binds (``ctx`` :class:`ast.Store`, imports included) or reads
    (:class:`ast.Load`)."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return set()
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
    if ctx is ast.Store:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return out


def _place(body: Sequence[cst.BaseStatement], statements: Sequence[str]) -> int:
    """Where the ``statements`` go: after every import of the leading block that binds a
    name they read, then before the block's next import beyond the standard library and
    pytest (a ``sys.path`` insert must run before the import that needs it), else after
    the block."""
    start, end = import_block(body)
    reads = set().union(*(_names(s, ast.Load) for s in statements))
    code = cst.Module([]).code_for_node
    needed = [i + 1 for i in range(start, end) if _names(code(body[i]), ast.Store) & reads]
    at = max([start, *needed])
    while at < end and plain_import(body[at]):
        at += 1
    return at
