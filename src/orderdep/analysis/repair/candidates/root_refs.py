"""Expressions a patch uses to reach a polluted root: the object holding it, its value,
a file's path (each with the imports it needs); shared by restores and guards."""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.repair.locate.module_names import ModuleNames, attribute_reference
from orderdep.analysis.repair.locate.root_info import RootInfo

Stmts = tuple[list[str], list[str]]  # (statements, fixtures they need)


def owner_expr(
    root: RootInfo, names: ModuleNames, test_module: Optional[str]
) -> tuple[str, list[str]]:
    """Expression for the object holding the root's last attribute, and imports."""
    assert root.module is not None
    if root.module == test_module:
        if len(root.attrs) == 1:
            return "", []  # the test's own global: reached through globals()
        return ".".join(root.attrs[:-1]), []
    return attribute_reference(root.module, root.attrs[:-1], names, root.shadowed)


CWD = "$CWD/"  # file roots under the working directory (state/files.py)


def root_ref(
    root: RootInfo, names: ModuleNames, test_module: Optional[str]
) -> tuple[str, list[str]]:
    """Expression for the root's value itself (for in-place changes), and imports."""
    assert root.module is not None
    if root.module == test_module:
        return ".".join(root.attrs), []
    return attribute_reference(root.module, root.attrs, names, root.shadowed)


def file_expr(path: str) -> tuple[str, list[str]]:
    """Expression for a file root's path, and imports."""
    if path.startswith(CWD):  # under the working directory a fixture moved the tests to
        return f"pathlib.Path({path[len(CWD) :]!r}).absolute()", ["import pathlib"]
    if path.startswith("~/"):
        return f"pathlib.Path.home().joinpath({path[2:]!r})", ["import pathlib"]
    if path.startswith("$TMP/"):
        return f"pathlib.Path(tempfile.gettempdir(), {path[5:]!r})", [
            "import pathlib",
            "import tempfile",
        ]
    return f"request.config.rootpath.joinpath({path!r})", []
