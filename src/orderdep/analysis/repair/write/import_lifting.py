"""Imports a patch needs, written at the top of the file the way a maintainer would.

An inserted ``import os`` goes to the file's import block, in isort's order (standard
library first, ``import x`` before ``from x import y``, alphabetical), and
``from pkg import b`` joins an existing ``from pkg import a``. Only imports that cannot
change what the tests observe are lifted: standard-library modules, and names from a
module the file already imports from at the top. Importing a project module earlier (at
collection instead of inside a test) may be the very change a test checks, so such an
import stays where the patch put it.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
from typing import Optional, Union

import libcst as cst

ImportNode = Union[cst.Import, cst.ImportFrom]
Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]


def _module_name(node: ImportNode) -> str:
    if isinstance(node, cst.Import):
        return cst.Module([]).code_for_node(node.names[0].name)
    dots = "." * len(node.relative)
    name = cst.Module([]).code_for_node(node.module) if node.module is not None else ""
    return dots + name


def _import_of(stmt: cst.BaseStatement) -> Optional[ImportNode]:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        node = stmt.body[0]
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return node
    return None


# importing these at collection changes nothing a test can observe
ALWAYS_LIFTED = frozenset({"pytest"})


def _is_stdlib(module: str) -> bool:
    return not module.startswith(".") and module.split(".")[0] in stdlib_names()


@functools.cache
def stdlib_names() -> frozenset[str]:
    """The standard library's top-level modules: ``sys.stdlib_module_names`` (3.10+); on
    3.9, the built-in modules and those of the standard library's directories."""
    names = getattr(sys, "stdlib_module_names", None)
    if names is not None:
        return frozenset(names)
    import pkgutil
    import sysconfig

    stdlib = sysconfig.get_paths()["stdlib"]
    found = pkgutil.iter_modules([stdlib, os.path.join(stdlib, "lib-dynload")])
    return frozenset({m.name for m in found} | set(sys.builtin_module_names))


def _key(node: ImportNode) -> tuple[int, int, str]:
    """isort's order: standard library first; ``import`` before ``from``; by name."""
    name = _module_name(node)
    return (0 if _is_stdlib(name) else 1, isinstance(node, cst.ImportFrom), name.lower())


def plain_import(stmt: cst.BaseStatement) -> bool:
    """Whether ``stmt`` imports from the standard library, ``__future__`` or pytest
    (nothing a ``sys.path`` insert is for)."""
    node = _import_of(stmt)
    return node is not None and (_key(node)[0] == 0 or _module_name(node) in ALWAYS_LIFTED)


def import_block(body: Sequence[cst.BaseStatement]) -> tuple[int, int]:
    """(start, end) of the leading import block, after the docstring and ``__future__``."""
    i = 0
    if body and isinstance(body[0], cst.SimpleStatementLine):
        first = body[0].body[0] if body[0].body else None
        if isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString):
            i = 1
    while i < len(body):
        node = _import_of(body[i])
        if isinstance(node, cst.ImportFrom) and _module_name(node) == "__future__":
            i += 1
        else:
            break
    start = i
    while i < len(body) and _import_of(body[i]) is not None:
        i += 1
    return start, i


def _names(node: cst.ImportFrom) -> list[str]:
    if isinstance(node.names, cst.ImportStar):
        return ["*"]
    return [cst.Module([]).code_for_node(a).strip() for a in node.names]


def liftable(text: str, source_module: cst.Module) -> bool:
    """Whether import statement ``text`` can go to the top of ``source_module``."""
    try:
        parsed = cst.parse_statement(text)
    except cst.ParserSyntaxError:
        return False
    node = _import_of(parsed)
    if node is None:
        return False
    if isinstance(node, cst.Import):
        name = _module_name(node)
        return len(node.names) == 1 and (_is_stdlib(name) or name in ALWAYS_LIFTED)
    if _is_stdlib(_module_name(node)):
        return True
    for stmt in source_module.body:
        have = _import_of(stmt)
        if isinstance(have, cst.ImportFrom) and _module_name(have) == _module_name(node):
            return "*" not in _names(have)
    return False


def add_imports(module: cst.Module, imports: Sequence[str]) -> cst.Module:
    """``module`` with ``imports`` at its top: ones it has are skipped, ``from`` imports of
    a module it already imports from are merged into that statement."""
    body: list[Statement] = list(module.body)
    for text in imports:
        new_stmt = cst.parse_statement(text)
        assert isinstance(new_stmt, cst.SimpleStatementLine)
        new = _import_of(new_stmt)
        assert new is not None
        code = cst.Module([]).code_for_node
        if any(code(s).strip() == code(new_stmt).strip() for s in body):
            continue
        if isinstance(new, cst.ImportFrom) and not isinstance(new.names, cst.ImportStar):
            merged = False
            for i, stmt in enumerate(body):
                have = _import_of(stmt)
                if (
                    isinstance(have, cst.ImportFrom)
                    and _module_name(have) == _module_name(new)
                    and not isinstance(have.names, cst.ImportStar)
                    and have.relative == new.relative
                ):
                    present = set(_names(have))
                    extra = [a for a in new.names if code(a).strip() not in present]
                    fixed = _merged_names(list(have.names), extra, have.lpar)
                    assert isinstance(stmt, cst.SimpleStatementLine)
                    body[i] = stmt.with_changes(body=[have.with_changes(names=fixed)])
                    merged = True
                    break
            if merged:
                continue
        body = _insert_sorted(body, new_stmt, new)
    return module.with_changes(body=body)


def _merged_names(
    have: list[cst.ImportAlias], extra: list[cst.ImportAlias], lpar: Optional[cst.LeftParen]
) -> list[cst.ImportAlias]:
    """The names of a ``from`` import with ``extra`` ones: in their sorted places when the
    names there are sorted, else after them (the names there keep their order: a patch
    touches only what it adds). A parenthesized import keeps its layout (one name per line
    stays one name per line, a trailing comma stays); another is written on one line."""
    code = cst.Module([]).code_for_node

    def name(alias: cst.ImportAlias) -> str:
        return code(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip().lower()

    if [name(a) for a in have] == sorted(name(a) for a in have):
        ordered = sorted([*have, *extra], key=name)
    else:
        ordered = [*have, *sorted(extra, key=name)]
    if lpar is None:
        return [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in ordered]
    between = next((a.comma for a in have[:-1] if isinstance(a.comma, cst.Comma)), None)
    if between is None:  # one name so far: the next starts as the first does after "("
        after = lpar.whitespace_after
        if isinstance(after, cst.SimpleWhitespace) and not after.value:
            after = cst.SimpleWhitespace(" ")
        between = cst.Comma(whitespace_after=after)
    last = have[-1].comma
    return [
        *(a.with_changes(comma=between) for a in ordered[:-1]),
        ordered[-1].with_changes(comma=last),
    ]


def _blank() -> cst.EmptyLine:
    return cst.EmptyLine()


def _insert_sorted(
    body: list[Statement], stmt: cst.SimpleStatementLine, node: ImportNode
) -> list[Statement]:
    start, end = import_block(body)
    key = _key(node)
    at = start
    for i in range(start, end):
        have = _import_of(body[i])
        assert have is not None
        if _key(have) <= key:
            at = i + 1
    out = list(body)
    if at == start:  # first of the block: take over what stood above the old first
        if at < len(out):
            old = out[at]
            lead = list(old.leading_lines)
            stmt = stmt.with_changes(leading_lines=lead)
            old_node = _import_of(old)
            gap = old_node is None or _key(old_node)[0] != key[0]
            code = isinstance(old, (cst.FunctionDef, cst.ClassDef))
            out[at] = old.with_changes(leading_lines=[_blank()] * (2 if code else gap))
            if old_node is None and not lead and at > 0:
                stmt = stmt.with_changes(leading_lines=[_blank()])
        out.insert(at, stmt)
        return out
    prev = _import_of(out[at - 1])
    assert prev is not None
    if _key(prev)[0] != key[0]:  # a new section: a blank line above it
        stmt = stmt.with_changes(leading_lines=[_blank()])
        if at < end:
            nxt = _import_of(out[at])
            if nxt is not None and _key(nxt)[0] == key[0]:
                out[at] = out[at].with_changes(leading_lines=[])
    out.insert(at, stmt)
    return out
