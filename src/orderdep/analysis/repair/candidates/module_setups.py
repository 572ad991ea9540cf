"""Candidate patches for a test that fails as ``pytest FILE``: its file gets, at its top,
what the state-setter's module does at import.

Such a brittle (:mod:`orderdep.analysis.collection_check`) passes whenever pytest also
collects the state-setter's file, because importing that file changes the process: it
puts a directory on ``sys.path``, or defines a class a registry finds. The candidates,
in the order they are tried:

1. **The import-time statements the brittle's file lacks** (:func:`import_time_code`):
   the setter module's top-level statements that do something when run (calls, ``if``,
   ``try``, ``with`` and ``for`` blocks, assignments to an attribute or an item), with
   the assignments and imports they read, copied in the setter module's order: each
   alone when there are a few, then all of them. ``sys.path.insert(0, str(HERE /
   "scripts"))`` guarded by ``if ... not in sys.path`` is the common case.
2. **The import of the setter's module** (:func:`import_candidate`), under the name
   pytest's default import mode gives it (:func:`~.module_names.module_name_for`):
   every statement of it runs, class definitions included.

Whether a candidate repairs the test is for verification to say
(:mod:`orderdep.analysis.repair.collection_fix`); nothing here runs code. Pure: file
texts in, statements out.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.locate.module_names import module_name_for

#: Top-level statements that act when the module is imported (and assignments to an
#: attribute or an item: ``registry.GROUPS["csv"] = ...``).
ACTING = (ast.Expr, ast.If, ast.Try, ast.With, ast.For)
#: Up to this many such statements are also tried one at a time, before all together.
ONE_BY_ONE = 3


@dataclass(frozen=True)
class ModuleSetup:
    """Statements for the top of the brittle's file, and what they are."""

    statements: tuple[str, ...]
    description: str


def _bound(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _read(node: ast.AST) -> set[str]:
    """The names ``node`` reads."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _acts(node: ast.stmt) -> bool:
    """Whether a top-level statement does something beyond binding names."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(not isinstance(t, ast.Name) for t in targets)
    return isinstance(node, ACTING) and not _is_docstring(node) and not _is_main_guard(node)


def _is_main_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__name__" in _read(node.test)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _parse(source: str) -> Optional[list[ast.stmt]]:
    try:
        return ast.parse(source).body
    except SyntaxError:
        return None


def acting_statements(setter_source: str, own_source: str) -> list[ast.stmt]:
    """The top-level statements of ``setter_source`` that act at import (:func:`_acts`)
    and that ``own_source`` lacks."""
    setter, own = _parse(setter_source), _parse(own_source)
    if setter is None or own is None:
        return []
    have = {ast.dump(n) for n in own}
    return [n for n in setter if _acts(n) and ast.dump(n) not in have]


def import_time_code(
    setter_source: str, own_source: str, acting: Optional[Sequence[ast.stmt]] = None
) -> list[str]:
    """The ``acting`` statements of ``setter_source`` (default: all of
    :func:`acting_statements`), with the assignments and imports they read (those the
    own file binds itself left out), in the setter's order; empty when there are none,
    or when one of them reads a function or class of the setter's module (copying that
    is not a small patch)."""
    setter, own = _parse(setter_source), _parse(own_source)
    if setter is None or own is None:
        return []
    if acting is None:
        acting = acting_statements(setter_source, own_source)
    dumps = {ast.dump(n) for n in acting}
    acting = [n for n in setter if ast.dump(n) in dumps]  # the nodes of this parse
    if not acting:
        return []
    own_names: set[str] = set().union(*(_bound(n) for n in own))
    chosen: set[int] = {id(n) for n in acting}
    wanted = set().union(*(_read(n) for n in acting)) - own_names
    changed = True
    while changed:  # the assignments and imports they read, and what those read
        changed = False
        for node in setter:
            if id(node) in chosen or not (_bound(node) & wanted):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return []
            if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
                continue
            chosen.add(id(node))
            wanted |= _read(node) - own_names
            changed = True
    out = []
    for node in setter:
        if id(node) in chosen:
            code = ast.get_source_segment(setter_source, node)
            if code is None:
                return []
            out.append(code)
    return out


def import_candidate(root: Path, setter_file: str) -> ModuleSetup:
    """``import`` of the setter's module, kept though nothing reads the name."""
    name = module_name_for(root, setter_file)
    return ModuleSetup(
        (f"import {name}  # noqa: F401",),
        f"import {setter_file} (for what it does at import)",
    )


def module_setups(root: Path, own_file: str, setter_files: Sequence[str]) -> list[ModuleSetup]:
    """The candidates for a brittle of ``own_file`` whose state-setters are in
    ``setter_files`` (first the one whose collection it needs): each file's import-time
    statements the own file lacks (the pattern its sibling modules follow), then the
    import of each file (which ties one test module to another)."""
    try:
        own = (root / own_file).read_text(encoding="utf-8")
    except OSError:
        return []
    out: list[ModuleSetup] = []
    files = [f for f in dict.fromkeys(setter_files) if f != own_file]
    for setter_file in files:
        try:
            source = (root / setter_file).read_text(encoding="utf-8")
        except OSError:
            continue
        acting = acting_statements(source, own)
        alone = [[n] for n in acting] if 1 < len(acting) <= ONE_BY_ONE else []
        for some in [*alone, acting]:
            code = import_time_code(source, own, some)
            if code and all(code != list(c.statements) for c in out):
                out.append(ModuleSetup(tuple(code), f"what {setter_file} does at import"))
    return out + [import_candidate(root, f) for f in files]
