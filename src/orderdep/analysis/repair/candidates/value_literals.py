"""Python literals of the values the debug probe describes, and statements that give an
object such a value in place (the restores of :mod:`.root_statements` use them)."""

from __future__ import annotations

import ast
from typing import Any, Callable, Optional

from orderdep.analysis.repair.locate.root_info import RootInfo, object_attributes


def _atom_literal(desc: Any) -> Optional[str]:
    """The literal of a described atom (``['atom', 'int', '0']``), if it is one."""
    if not (isinstance(desc, list) and len(desc) == 3 and desc[0] == "atom"):
        return None
    try:
        ast.literal_eval(desc[2])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return str(desc[2])


def changed_attributes(root: RootInfo) -> dict[str, str]:
    """Attribute -> passing literal for an object changed in place ({} if not expressible).

    Only when every attribute that differs had a literal value in the passing order.
    """
    return _differing_literals(root, _atom_literal)


def desc_literal(desc: Any) -> Optional[str]:
    """Python literal of a described value (atoms, dicts, lists, tuples, sets of them)."""
    text = _desc_literal(desc, 0)
    if text is None:
        return None
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text


def _desc_literal(desc: Any, depth: int) -> Optional[str]:
    if depth > 8 or not (isinstance(desc, list) and len(desc) == 3):
        return None
    tag, tname, payload = desc
    if tag == "atom":
        return _atom_literal(desc)
    if tag == "dict" and tname == "dict":
        items = []
        for key, value in payload:
            text = _desc_literal(value, depth + 1)
            if text is None or _atom_literal(["atom", "", key]) is None:
                return None
            items.append(f"{key}: {text}")
        return "{" + ", ".join(items) + "}"
    if tag == "seq" and tname in ("list", "tuple"):
        parts = [_desc_literal(v, depth + 1) for v in payload]
        if any(x is None for x in parts):
            return None
        inner = ", ".join(str(x) for x in parts)
        if tname == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(parts) == 1 else f"({inner})"
    if tag == "set" and tname == "set":
        if any(_atom_literal(["atom", "", x]) is None for x in payload):
            return None
        return "{" + ", ".join(payload) + "}" if payload else "set()"
    return None


def refill_statements(ref: str, type_name: str, literal: str) -> list[str]:
    """Statements giving the object ``ref`` (of ``type_name``) the value ``literal`` in place."""
    if type_name in ("dict", "set"):
        empty = literal in ("{}", "set()")
        return [f"{ref}.clear()", *([] if empty else [f"{ref}.update({literal})"])]
    if type_name == "list":
        return [f"{ref}[:] = {literal}"]
    return []


def _desc_type(desc: Any) -> str:
    return str(desc[1]) if isinstance(desc, list) and len(desc) == 3 else ""


def attribute_restores(root: RootInfo, ref: str) -> Optional[list[str]]:
    """Statements putting back, in place, every attribute of object ``ref`` that differs
    from the passing value (containers refilled, other values assigned); None when one of
    them has no literal."""
    f, p = root.failing.desc, root.passing.desc
    if not (isinstance(f, list) and isinstance(p, list) and f[:2] == p[:2] and f[0] == "obj"):
        return None
    fa, pa = dict((k, v) for k, v in f[2]), dict((k, v) for k, v in p[2])
    out: list[str] = []
    for key in sorted(set(fa) | set(pa)):
        if fa.get(key) == pa.get(key):
            continue
        if not str(key).isidentifier():
            return None
        if key not in pa:
            out.append(f"del {ref}.{key}")
            continue
        literal = desc_literal(pa[key])
        if literal is None:
            return None
        same_type = _desc_type(fa.get(key)) == _desc_type(pa[key])
        refill = (
            refill_statements(f"{ref}.{key}", _desc_type(pa[key]), literal) if same_type else []
        )
        out += refill or [f"{ref}.{key} = {literal}"]
    return out or None


def attribute_literals(root: RootInfo) -> dict[str, str]:
    """Attribute -> passing literal of every attribute that differs on an object changed
    in place, containers included ({} when one of them is missing or has no literal)."""
    return _differing_literals(root, lambda d: None if d is None else desc_literal(d))


def _differing_literals(root: RootInfo, literal: Callable[[Any], Optional[str]]) -> dict[str, str]:
    """Attribute -> ``literal`` of its passing description, for every attribute that
    differs on an object changed in place ({} when one has none, or is not a name)."""
    both = object_attributes(root.failing.desc, root.passing.desc)
    if both is None:
        return {}
    fa, pa = both
    out: dict[str, str] = {}
    for key in sorted(set(fa) | set(pa)):
        if fa.get(key) == pa.get(key):
            continue
        value = literal(pa.get(key))
        if value is None or not str(key).isidentifier():
            return {}
        out[str(key)] = value
    return out


def differing_attributes(root: RootInfo) -> list[str]:
    """The attributes that differ on an object changed in place (identifiers only; [] when
    the root is not one object described in both orders)."""
    both = object_attributes(root.failing.desc, root.passing.desc)
    if both is None:
        return []
    fa, pa = both
    keys = [*pa, *(k for k in fa if k not in pa)]
    return [str(k) for k in keys if fa.get(k) != pa.get(k) and str(k).isidentifier()]


def settings_changes(root: RootInfo) -> dict[str, object]:
    """The settings of a root captured as a dict literal (the decimal context, a logger)
    that differ between the failing and the passing state, with their passing values."""
    try:
        failing = ast.literal_eval(root.failing.literal or "{}")
        passing = ast.literal_eval(root.passing.literal or "{}")
    except (ValueError, SyntaxError):
        return {}
    return {f: v for f, v in passing.items() if failing.get(f) != v}


def argv_arguments(root: RootInfo) -> Optional[list[str]]:
    """The literals of ``sys.argv[1:]`` where the test passes, when they differ from where
    it fails; None when one of them is an absolute path (a patch names nothing of this
    machine; the program name ``sys.argv[0]`` is the run's own, not written)."""

    def arguments(desc: Any) -> Optional[list[Any]]:
        if isinstance(desc, list) and len(desc) == 3 and desc[0] == "seq":
            return list(desc[2][1:])
        return None

    items = arguments(root.passing.desc)
    if items is None or items == arguments(root.failing.desc):
        return None
    literals = [_atom_literal(item) for item in items]
    if any(x is None for x in literals):
        return None
    texts = [ast.literal_eval(str(x)) for x in literals]
    if not all(isinstance(t, str) and not t.startswith("/") for t in texts):
        return None
    return [str(x) for x in literals]
