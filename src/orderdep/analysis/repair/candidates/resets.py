"""ODRepair's reset-method finder (003 §3.2.1), on the AST of the polluted root's module.

A function or method is a candidate when it

1. rebinds the root (``global NAME; NAME = ...``, ``cls.attr = ...``,
   ``Cls.attr = ...``): the ``PUTSTATIC`` heuristic; or
2. calls a collection-modifying method on it (``clear``, ``pop``, ``remove``, ``discard``,
   ``update``, ...; ``del NAME[k]``, ``NAME[k] = v``); or, when the root holds an
   instance of a class of the module, a method of that class that does so on one of its
   own fields (the paper's "fields defined within the type of the polluted static field").

Methods are reached the way a test would: module functions directly, class and static
methods through the class, instance methods through the module global that holds the
instance or a zero-argument module function returning it (the paper's helper methods,
e.g. ``JobRegistry.getInstance()``). The literals and call sequences built on them are
:mod:`~orderdep.analysis.repair.candidates.reset_calls`'.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from orderdep.analysis.repair.locate.root_info import RootInfo

MUTATORS = frozenset(
    {"clear", "pop", "popitem", "remove", "discard", "update", "setdefault", "difference_update",
     "intersection_update", "popleft", "reset", "close", "shutdown"}
)  # fmt: skip
RESET_WORDS = ("reset", "clear", "teardown", "unregister", "remove", "delete", "shutdown",
               "close", "restore", "flush", "purge", "invalidate", "drop", "cleanup", "stop")  # fmt: skip


@dataclass(frozen=True)
class Param:
    name: str
    required: bool
    annotation: str = ""


@dataclass(frozen=True)
class ResetMethod:
    """A function a test can call that may reset the root."""

    module: str
    path: tuple[str, ...]  # how to reach it from the module, e.g. ("REGISTRY", "clear")
    params: tuple[Param, ...]
    why: str  # "rebinds ROOT" | "calls ROOT.clear()" | ...
    score: int = 0
    via_call: bool = False  # path[0] is a getter to call: ``get_registry().clear()``

    def describe(self) -> str:
        return f"{self.module}.{'.'.join(self.path)} ({self.why})"


# -- finding reset-methods -------------------------------------------------------------
def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef, skip_first: bool) -> tuple[Param, ...]:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    if skip_first and positional:
        positional = positional[1:]
    n_default = len(args.defaults)
    out = []
    for i, a in enumerate(positional):
        required = i < len(positional) - n_default
        ann = ast.unparse(a.annotation) if a.annotation is not None else ""
        out.append(Param(a.arg, required, ann))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        ann = ast.unparse(a.annotation) if a.annotation is not None else ""
        out.append(Param(a.arg, d is None, ann))
    return tuple(out)


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in fn.decorator_list}


def _target_matches(node: ast.expr, names: set[str]) -> bool:
    """``node`` is the root: a bare name in ``names`` or ``<x>.attr`` with attr in names."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr in names
    return False


def _touches(fn: ast.AST, names: set[str], *, bare_ok: bool) -> Optional[str]:
    """How ``fn`` resets something named in ``names``, or None."""
    rebinding_globals: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Global):
            rebinding_globals.update(n for n in node.names if n in names)
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            for t in node.targets:
                if (
                    isinstance(t, ast.Subscript)
                    and _target_matches(t.value, names)
                    and (bare_ok or isinstance(t.value, ast.Attribute))
                ):
                    return f"deletes items of {ast.unparse(t.value)}"
        for t in targets:
            if isinstance(t, ast.Name) and t.id in rebinding_globals:
                return f"rebinds {t.id}"
            if isinstance(t, ast.Attribute) and t.attr in names:
                return f"rebinds {ast.unparse(t)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            obj = node.func.value
            if (
                node.func.attr in MUTATORS
                and _target_matches(obj, names)
                and (bare_ok or isinstance(obj, ast.Attribute))
            ):
                return f"calls {ast.unparse(node.func)}()"
    return None


def _score(name: str, params: Sequence[Param], why: str) -> int:
    score = 0
    low = name.lower()
    if any(w in low for w in RESET_WORDS):
        score += 4
    if low.startswith("test"):
        score -= 10
    if not any(p.required for p in params):
        score += 2
    if "clear" in why or "rebinds" in why or "deletes" in why:
        score += 2
    return score


def _instance_classes(tree: ast.Module, root_name: str) -> set[str]:
    """Classes whose instance the module binds to ``root_name`` (``NAME = Cls(...)``)."""
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if (
                any(isinstance(t, ast.Name) and t.id == root_name for t in targets)
                and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
            ):
                out.add(value.func.id)
    return out


def _getters(tree: ast.Module, root_name: str) -> list[str]:
    """Zero-argument module functions that return ``root_name`` (singleton getters)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not _params(node, False):
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Return)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == root_name
                ):
                    out.append(node.name)
                    break
    return out


def find_reset_methods(source: str, root: RootInfo) -> list[ResetMethod]:
    """Reset-method candidates in the root's module source, best first (§3.2.1)."""
    if root.module is None or not root.attrs:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    module, attrs = root.module, root.attrs
    attr = attrs[-1]
    found: list[ResetMethod] = []

    def add(path: tuple[str, ...], fn: Any, why: str, skip_first: bool, via: bool = False) -> None:
        params = _params(fn, skip_first)
        found.append(ResetMethod(module, path, params, why, _score(path[-1], params, why), via))

    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(attrs) == 1:
            why = _touches(node, {attr}, bare_ok=True)
            if why:
                add((node.name,), node, why, False)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(attrs) == 2:
            why = _touches(node, {attr}, bare_ok=False)  # Cls.attr = ... from a function
            if why and f"{attrs[0]}.{attr}" in why:
                add((node.name,), node, why, False)
    if len(attrs) == 2 and attrs[0] in classes:
        for fn in classes[attrs[0]].body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            deco = _decorators(fn)
            why = _touches(fn, {attr}, bare_ok=False)
            if why and ("classmethod" in deco or "staticmethod" in deco):
                add((attrs[0], fn.name), fn, why, "classmethod" in deco)
    if len(attrs) == 1:  # the root holds an instance: methods mutating its own fields
        holders = [(attr,), *((g,) for g in _getters(tree, attr))]
        for cls_name in _instance_classes(tree, attr):
            cls = classes.get(cls_name)
            if cls is None:
                continue
            for fn, why in _field_mutators(cls):
                for holder in holders:
                    add((*holder, fn.name), fn, why, True, via=holder[0] != attr)
    found.sort(key=lambda m: (-m.score, len(m.path), m.path))
    return found


def _field_mutators(
    cls: ast.ClassDef,
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Instance methods of ``cls`` that reset one of its own fields, and how."""
    out = []
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if fn.name.startswith("__") or _decorators(fn) & {"staticmethod", "classmethod"}:
            continue
        fields = {
            n.attr
            for n in ast.walk(fn)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id == "self"
        }
        why = _touches(fn, fields, bare_ok=False)
        if why:
            out.append((fn, why))
    return out


def find_value_methods(source: str, class_name: str, module: str) -> list[ResetMethod]:
    """Reset-method candidates of an object that no module global holds (a fixture's
    value): the methods of its class ``class_name`` (a qualname in ``source``) that reset
    one of its fields, best first; their ``path`` is the method name alone."""
    cls = _find_class(source, class_name)
    if cls is None:
        return []
    out = []
    for fn, why in _field_mutators(cls):
        params = _params(fn, True)
        out.append(ResetMethod(module, (fn.name,), params, why, _score(fn.name, params, why)))
    out.sort(key=lambda m: (-m.score, m.path))
    return out


def find_owner_methods(source: str, class_name: str, module: str, attr: str) -> list[ResetMethod]:
    """Reset-method candidates of an attribute root ``obj.attr`` whose object's class
    ``class_name`` (a qualname) is defined in ``source``, another module than the global
    holding the object: the instance methods that reset ``self.attr``, best first; their
    ``path`` is the method name alone."""
    cls = _find_class(source, class_name)
    out = []
    for fn in cls.body if cls is not None else []:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if fn.name.startswith("__") or _decorators(fn) & {"staticmethod", "classmethod"}:
            continue
        why = _touches(fn, {attr}, bare_ok=False)
        if why and why.split(" ", 1)[-1].startswith(f"self.{attr}"):
            params = _params(fn, True)
            out.append(ResetMethod(module, (fn.name,), params, why, _score(fn.name, params, why)))
    out.sort(key=lambda m: (-m.score, m.path))
    return out


def _find_class(source: str, class_name: str) -> Optional[ast.ClassDef]:
    """The class ``class_name`` (a qualname, ``Outer.Inner``) defined in ``source``."""
    try:
        body: list[ast.stmt] = ast.parse(source).body
    except SyntaxError:
        return None
    cls: Optional[ast.ClassDef] = None
    for part in class_name.split("."):
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == part]
        if not found:
            return None
        cls = found[0]
        body = cls.body
    return cls
