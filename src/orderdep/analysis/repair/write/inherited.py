"""Test methods a class inherits from a base class of the same file.

pytest collects ``test_a.py::Sub::test_x`` for a ``test_x`` that only a base class of
``Sub`` defines (one set of checks run against several implementations, a subclass that
changes the set-up). Reading or patching that test means going to the class that defines
the method; what ``Sub`` overrides (its set-up) stays in ``Sub``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Optional, Union

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def class_at(body: Sequence[ast.stmt], classes: Sequence[str]) -> Optional[ast.ClassDef]:
    """The class ``classes`` names (outermost first) among ``body``'s statements."""
    node: Optional[ast.ClassDef] = None
    for name in classes:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == name]
        if not found:
            return None
        node = found[-1]
        body = node.body
    return node


def method_of(node: ast.ClassDef, name: str) -> Optional[Function]:
    """The last definition of ``name`` in the body of class ``node``."""
    fns = [
        n
        for n in node.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    return fns[-1] if fns else None


def base_classes(tree: ast.Module, node: ast.ClassDef) -> list[ast.ClassDef]:
    """The bases of ``node`` that the file defines at top level, in method resolution
    order as far as a depth-first, left-to-right walk gives it (bases imported from
    elsewhere are not followed)."""
    top = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    out: list[ast.ClassDef] = []

    def walk(cls: ast.ClassDef) -> None:
        for base in cls.bases:
            found = top.get(base.id) if isinstance(base, ast.Name) else None
            if found is not None and found is not node and found not in out:
                out.append(found)
                walk(found)

    walk(node)
    return out


def defining_class(tree: ast.Module, classes: Sequence[str], name: str) -> Optional[list[str]]:
    """The class path whose body defines method ``name`` for the class ``classes`` names:
    ``classes`` itself, else the first base class of the file that does. None when
    neither does."""
    node = class_at(tree.body, classes)
    if node is None:
        return None
    if method_of(node, name) is not None:
        return list(classes)
    for base in base_classes(tree, node):
        if method_of(base, name) is not None:
            return [base.name]
    return None


def defining_path(source: str, classes: Sequence[str], name: str) -> list[str]:
    """``classes``, or the base class that defines method ``name`` when ``classes`` only
    inherits it (the source unparsable or the method nowhere: ``classes``)."""
    if not classes:
        return list(classes)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return list(classes)
    return defining_class(tree, classes, name) or list(classes)


__all__ = ["base_classes", "class_at", "defining_class", "defining_path", "method_of"]
