"""A fresh value for a polluted global or class attribute, made the way its module made it.

A victim passes on the value a module global or class attribute had when its module was
imported (``graph = SimpleGraph()`` in a test class, ``_registry = Registry()`` in a
package), and fails on the same object after other tests filled it. When the probe cannot
write that value as a literal, the assignment in the source still says how to make it::

    monkeypatch.setattr(TestSimpleGraph, "graph", SimpleGraph())

:func:`initializer_restores` reads the one assignment that defines the root at module (or
class) level and evaluates its expression again at the start of the victim, through
``monkeypatch`` (undone when the test ends, so tests that build on the shared object keep
it), or, when later tests build on what the victim adds, by a plain assignment that
stays. The names in the expression are reached through the root's module when the victim's
module is another (``collections.OrderedDict()`` with ``import collections``, or
``settings.Registry()``). Only expressions that make a new object (a
call, a container display) qualify: a bare name would hand back the polluted object.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, combine
from orderdep.analysis.repair.candidates.sources import FunctionSource
from orderdep.analysis.repair.locate.module_names import (
    ModuleNames,
    attribute_reference,
    imported_from,
    module_reference,
)
from orderdep.analysis.repair.locate.root_info import RootInfo

Stmts = tuple[list[str], list[str]]  # (statements, fixtures they need)

# expressions whose names may be bound only inside them (a lambda's parameters, a
# comprehension's variables), or that cannot run again outside their place
_UNSAFE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)  # fmt: skip
_MAKES = (ast.Call, ast.List, ast.Dict, ast.Set, ast.Tuple)


def _body_of(tree: ast.Module, classes: Sequence[str]) -> Optional[list[ast.stmt]]:
    """The statements of the class ``classes`` names (nested), or of the module."""
    body: list[ast.stmt] = tree.body
    for name in classes:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == name]
        if len(found) != 1:
            return None
        body = found[0].body
    return body


def _bound_here(body: Sequence[ast.stmt]) -> set[str]:
    """Names the statements of ``body`` bind at their own level."""
    out: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        for target in getattr(node, "targets", [getattr(node, "target", None)]):
            out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target else set()
    return out


def initializer(source: str, attrs: Sequence[str]) -> Optional[ast.expr]:
    """The expression of the one assignment to ``attrs[-1]`` in the module (or the class
    ``attrs[:-1]`` names) of ``source``, when it makes a new object from names bound
    outside that class; None otherwise."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    body = _body_of(tree, attrs[:-1])
    if body is None:
        return None
    values: list[Optional[ast.expr]] = []
    for node in body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if attrs[-1] in names:
                values.append(node.value if len(node.targets) == 1 else None)
            elif any(attrs[-1] in {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
                     for t in node.targets):  # fmt: skip
                values.append(None)  # unpacked: no one expression of its own
        elif (
            isinstance(node, (ast.AnnAssign, ast.AugAssign))
            and isinstance(node.target, ast.Name)
            and node.target.id == attrs[-1]
        ):  # x += ... changes what the first assignment made
            values.append(node.value if isinstance(node, ast.AnnAssign) else None)
    if len(values) != 1 or values[0] is None:
        return None
    value = values[0]
    if not isinstance(value, _MAKES) or any(isinstance(n, _UNSAFE) for n in ast.walk(value)):
        return None
    if attrs[:-1]:  # class level: names of the class body are not reachable from outside
        local = _bound_here(body)
        if any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(value)):
            return None
    return value


def _imported_names(tree: ast.Module, module: str) -> dict[str, tuple[str, Optional[str]]]:
    """Name -> (module, attribute or None for the module itself) of each top-level import
    of ``module``'s source ``tree``."""
    out: dict[str, tuple[str, Optional[str]]] = {}
    package = module.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = (alias.name, None)
                else:
                    head = alias.name.split(".")[0]
                    out[head] = (head, None)
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            for alias in node.names:
                if alias.name != "*":
                    out[alias.asname or alias.name] = (base, alias.name)
    return out


def _reference(
    name: str, root: RootInfo, tree: ast.Module, names: ModuleNames
) -> tuple[str, list[str]]:
    """How the victim's module names ``name`` of the root's module: what it imported
    (``collections``, ``Graph`` from ``graphs``) directly, else through the module."""
    assert root.module is not None
    imported = _imported_names(tree, root.module).get(name)
    if imported is not None and imported[1] is None:
        return module_reference(imported[0], names)
    if imported is not None and imported[1] is not None:
        return attribute_reference(imported[0], [imported[1]], names)
    return attribute_reference(root.module, [name], names, root.shadowed)


class _Reach(ast.NodeTransformer):
    """Each free name of an expression reached through the root's module."""

    def __init__(self, reach: dict[str, ast.expr]) -> None:
        self.reach = reach

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.reach.get(node.id, node)


def initializer_restores(
    project: Path, root: RootInfo, names: ModuleNames, test_module: Optional[str]
) -> list[Stmts]:
    """``monkeypatch.setattr(owner, attr, <its initializer>)`` for a polluted global or
    class attribute whose passing value the probe could not write as a literal (see the
    module's docstring); [] when there is no such assignment."""
    if root.kind not in ("global", "classattr") or not root.module or not root.module_file:
        return []
    if not root.passing.present or root.passing.literal is not None or root.passing.importable:
        return []
    try:
        source = (project / root.module_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    value = initializer(source, root.attrs)
    if value is None:
        return []
    imports: list[str] = []
    if root.module != test_module:
        reach: dict[str, ast.expr] = {}
        tree = ast.parse(source)
        for name in sorted({n.id for n in ast.walk(value) if isinstance(n, ast.Name)}):
            if hasattr(builtins, name) and name not in _bound_here(tree.body):
                continue
            expr, more = _reference(name, root, tree, names)
            reach[name] = ast.parse(expr, mode="eval").body
            imports += [i for i in more if i not in imports]
        value = _Reach(reach).visit(value)
    made = ast.unparse(value)
    attr = root.attrs[-1]
    if root.module == test_module and len(root.attrs) == 1:
        return [([f"monkeypatch.setitem(globals(), {attr!r}, {made})"], ["monkeypatch"])]
    if root.module == test_module:
        owner = ".".join(root.attrs[:-1])
    else:
        owner, more = attribute_reference(root.module, root.attrs[:-1], names, root.shadowed)
        imports += [i for i in more if i not in imports]
    return [
        ([*imports, f"monkeypatch.setattr({owner}, {attr!r}, {made})"], ["monkeypatch"]),
        # not undone: tests after it that build on the shared object get the new one
        ([*imports, f"{owner}.{attr} = {made}"], []),
    ]


def made_anew(
    project: Path,
    victim: FunctionSource,
    test: str,
    roots: list[RootInfo],
    single: bool,
    names: ModuleNames,
) -> list[Candidate]:
    """Restore candidates for the OD test ``test`` (its source ``victim``) that make its
    roots anew (each root alone, or all together, as
    :func:`~orderdep.analysis.repair.candidates.candidates.combine` does). They rank after
    in-place restores of the same size, which code that kept the polluted object sees."""

    def anew(root: RootInfo) -> list[tuple[list[str], list[str]]]:
        return initializer_restores(project, root, names, victim.module)

    made = combine("restore", test, roots, single, anew, "makes anew")
    return [dataclasses.replace(c, remade=True) for c in made]


__all__ = ["initializer", "initializer_restores", "made_anew"]
