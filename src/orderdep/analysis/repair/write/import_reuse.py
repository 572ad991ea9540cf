"""An inserted import of what the function already imports under another name is written
as the function's own import, and the inserted statements use that name.

Patches for several OD tests may go into one shared method (a ``setUp``), each made
against the file as the previous one left it, so each found the name the previous one
bound taken and picked another (``metrics_registry``, ``_metrics_registry``, ...): one
module under three names in one function. The import itself goes with the statements
that use it (they go first in the function, and a name a function imports is local to
it: used before its import it would be unbound); :func:`imported_once` then drops the
same import further down, which the one at the top makes redundant.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from typing import Optional

import libcst as cst


def _bound(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``(what, name)`` for each object an import statement binds by its full path:
    ``from a.b import c as d`` binds ``a.b.c`` to ``d``; ``import a.b as e`` binds
    ``a.b`` to ``e``; ``import a.b`` binds ``a`` (not ``a.b``) to ``a``."""
    out: list[tuple[str, str]] = []
    if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        for alias in stmt.names:
            if alias.name != "*":
                out.append((f"{stmt.module}.{alias.name}", alias.asname or alias.name))
    elif isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.append((alias.name, alias.asname))
            else:
                top = alias.name.split(".")[0]
                out.append((top, top))
    return out


def _parsed(text: str) -> Optional[ast.stmt]:
    try:
        body = ast.parse(text.strip()).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def reuse_imports(code: Sequence[str], existing: Iterable[str]) -> list[str]:
    """``code`` (statements to insert) with each import of an object ``existing``
    (statements already in the function) imports under another name replaced by that
    import statement, and the names it bound renamed to the function's."""
    have: dict[str, tuple[str, str]] = {}  # what -> (name, the statement binding it)
    for text in existing:
        stmt = _parsed(text)
        bound = _bound(stmt) if stmt is not None else []
        if len(bound) == 1:
            have.setdefault(bound[0][0], (bound[0][1], text.strip()))
    renames: dict[str, str] = {}
    out: list[str] = []
    for text in code:
        stmt = _parsed(text)
        bound = _bound(stmt) if stmt is not None else []
        if len(bound) == 1 and bound[0][0] in have and have[bound[0][0]][0] != bound[0][1]:
            name, statement = have[bound[0][0]]
            renames[bound[0][1]] = name
            out.append(statement)  # the function's own import of it, again
            continue
        out.append(text)
    if not renames:
        return out
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, renames)) + r")\b")

    def renamed(text: str) -> str:
        stmt = _parsed(text)
        if stmt is not None and _bound(stmt):
            return text  # an import: as written
        return pattern.sub(lambda m: renames[m.group(1)], text)

    return [renamed(text) for text in out]


def _bare(stmt: cst.BaseStatement) -> str:
    """A statement's code without the comment lines above it."""
    return cst.Module([]).code_for_node(stmt.with_changes(leading_lines=[])).strip()


def imported_once(stmts: list[cst.BaseStatement], at: int, count: int) -> list[cst.BaseStatement]:
    """``stmts`` (a function body where ``count`` statements were just inserted at
    ``at``) without later copies of the inserted import statements; the comment lines
    above a copy move to the statement after it."""
    inserted = {
        _bare(s)
        for s in stmts[at : at + count]
        if isinstance(s, cst.SimpleStatementLine)
        and len(s.body) == 1
        and isinstance(s.body[0], (cst.Import, cst.ImportFrom))
    }
    if not inserted:
        return stmts
    out = list(stmts[: at + count])
    carried: list[cst.EmptyLine] = []
    for stmt in stmts[at + count :]:
        if isinstance(stmt, cst.SimpleStatementLine) and _bare(stmt) in inserted:
            carried += list(stmt.leading_lines)
            continue
        if carried and isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        out.append(stmt)
    return out
