"""Statements that set shared state, rewritten so the change ends with the test.

A brittle's fix takes its state-setter's statements; copied as they are, ``os.environ[
"HOME"] = ...`` or ``Config.debug = True`` would leak out of the fixed test and pollute
the ones after it. :func:`scope_statements` rewrites such assignments into their
``monkeypatch`` equivalents, which pytest undoes when the test ends:

====================================  ============================================
``os.environ[K] = V``                 ``monkeypatch.setenv(K, V)``
``del os.environ[K]``                 ``monkeypatch.delenv(K, raising=False)``
``obj[K] = V``                        ``monkeypatch.setitem(obj, K, V)``
``obj.attr = V``                      ``monkeypatch.setattr(obj, "attr", V)``
``os.chdir(P)``                       ``monkeypatch.chdir(P)``
====================================  ============================================

Assignments to local names, to ``self``/``cls`` attributes and everything else (calls
that register or configure) are left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Optional

LOCAL_OWNERS = ("self", "cls")


def _is_environ(node: ast.expr) -> bool:
    return ast.unparse(node) in ("os.environ", "environ")


def _owner_is_shared(node: ast.expr, local: set[str]) -> bool:
    """Whether ``node`` (what is assigned into) is not a local of the statements."""
    base = node
    while isinstance(base, (ast.Attribute, ast.Subscript)):
        base = base.value
    return not (isinstance(base, ast.Name) and (base.id in LOCAL_OWNERS or base.id in local))


def scope_statement(text: str, local: set[str]) -> Optional[str]:
    """``text`` through ``monkeypatch``, or None when it sets no shared state that way."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    u = ast.unparse
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], u(node.value)
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
            return None  # ``obj[:] = ...`` has no key to monkeypatch
        if isinstance(target, ast.Subscript) and _owner_is_shared(target.value, local):
            key = u(target.slice)
            if _is_environ(target.value):
                return f"monkeypatch.setenv({key}, {value})"
            return f"monkeypatch.setitem({u(target.value)}, {key}, {value})"
        if isinstance(target, ast.Attribute) and _owner_is_shared(target.value, local):
            return f"monkeypatch.setattr({u(target.value)}, {target.attr!r}, {value})"
    if isinstance(node, ast.Delete) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and _is_environ(target.value):
            return f"monkeypatch.delenv({u(target.slice)}, raising=False)"
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        if u(call.func) in ("os.chdir", "chdir") and len(call.args) == 1 and not call.keywords:
            return f"monkeypatch.chdir({u(call.args[0])})"
    return None


def _locals(statements: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for text in statements:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def scope_statements(statements: Sequence[str]) -> tuple[list[str], bool]:
    """(statements with every shared-state write through ``monkeypatch``, whether any was)."""
    local = _locals(statements)
    out, changed = [], False
    for text in statements:
        scoped = scope_statement(text, local)
        changed = changed or scoped is not None
        out.append(scoped if scoped is not None else text)
    return out, changed
