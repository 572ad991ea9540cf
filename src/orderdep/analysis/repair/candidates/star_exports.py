"""What ``from module import *`` binds, read from the module's source in the project.

A cleaner's statements may use a name its test module gets from a star import
(``from app.io import *`` gives ``save_group``); moved into another test module, they need
``from app.io import save_group`` unless that module has the same star import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path
from typing import Optional

SOURCE_DIRS = ("", "src")


def module_file(project: Path, module: str) -> Optional[Path]:
    """The file of ``module`` inside the project (``pkg/mod.py``, ``pkg/mod/__init__.py``,
    also under ``src/``), or None for a module from elsewhere."""
    rel = Path(*module.split("."))
    for base in SOURCE_DIRS:
        for path in (project / base / rel.with_suffix(".py"), project / base / rel / "__init__.py"):
            if path.is_file():
                return path
    return None


def top_level_defs(source: str) -> set[str]:
    """The names a module's source defines at top level: functions, classes, assignments."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def public_names(source: str) -> set[str]:
    """The names a star import of a module with ``source`` binds: its ``__all__`` when that
    is a literal list or tuple, else its top-level names not starting with ``_``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = top_level_defs(source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                listed = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(listed, (list, tuple)):
                return {str(n) for n in listed}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return {n for n in names if not n.startswith("_")}


def star_names(project: Path, modules: Iterable[str]) -> dict[str, str]:
    """Name -> the star-imported module (of the project) that binds it; the first wins."""
    out: dict[str, str] = {}
    for module in sorted(modules):
        path = module_file(project, module)
        if path is None:
            continue
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for name in public_names(source):
            out.setdefault(name, module)
    return out
