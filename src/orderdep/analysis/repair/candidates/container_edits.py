"""Key-level statements for a container changed in place (a dict that gained or lost
keys, an object whose attribute dict did), as the debugger's diff reports it.

A module-global dict such as ``parameters`` that a test writes ``params["tol"] = 0.5``
into, a registry's ``_listeners = defaultdict(list)`` a test registers into, an object's
internal dict returned by a property: the root's value usually has no literal (it holds
arrays, functions, objects), but the keys that differ do, so the fix names only them.

* :func:`restore_key_statements`: at the OD test's start, remove the extra keys and put
  back the missing or changed ones through ``monkeypatch`` (undone after the test);
* :func:`guard_key_statements`: at a polluter's start, make its key changes undone when
  it ends (``monkeypatch`` saves what it will change, a finaliser drops what it adds);
* :func:`attribute_copy_guards`: at a polluter's start, give the object a deep copy of
  each attribute that differs, which ``monkeypatch`` swaps back for the untouched
  original when the polluter ends (a snapshot of the same object would be mutated too).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable, Optional

from orderdep.analysis.repair.locate.root_info import RootInfo

MAX_EDITS = 8
MAX_DEPTH = 4


@dataclass(frozen=True)
class KeyEdit:
    """One key (or attribute) whose presence or value differs from the passing order."""

    container: str  # suffix reaching the container from the root: "", "._listeners", "['a']"
    key: str  # a dict key's literal, or an attribute name
    attr: bool  # an object's attribute, not a dict key
    change: str  # "extra", "missing" or "changed"
    passing: Any = None  # the passing value's description (None when extra)


def _is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _node(desc: Any) -> Optional[tuple[str, str, Any]]:
    if isinstance(desc, list) and len(desc) == 3:
        return str(desc[0]), str(desc[1]), desc[2]
    return None


def key_edits(failing: Any, passing: Any) -> Optional[list[KeyEdit]]:
    """The key-level edits turning ``failing`` into ``passing`` (descriptions of one
    dict or object), or None when the difference is not a matter of keys."""
    out: list[KeyEdit] = []
    if not _walk(failing, passing, "", out, 0) or not out or len(out) > MAX_EDITS:
        return None
    return out


def _walk(f: Any, p: Any, suffix: str, out: list[KeyEdit], depth: int) -> bool:
    fn, pn = _node(f), _node(p)
    if fn is None or pn is None or fn[:2] != pn[:2] or fn[0] not in ("dict", "obj"):
        return False
    attr = fn[0] == "obj"
    fd = {str(k): v for k, v in fn[2]}
    pd = {str(k): v for k, v in pn[2]}
    for key in sorted(set(fd) | set(pd)):
        if fd.get(key) == pd.get(key):
            continue
        if not (key.isidentifier() if attr else _is_literal(key)):
            return False
        if key not in pd:
            out.append(KeyEdit(suffix, key, attr, "extra"))
            continue
        if key not in fd:
            out.append(KeyEdit(suffix, key, attr, "missing", pd[key]))
            continue
        inner = f"{suffix}.{key}" if attr else f"{suffix}[{key}]"
        sub: list[KeyEdit] = []
        if depth < MAX_DEPTH and _walk(fd[key], pd[key], inner, sub, depth + 1):
            out += sub
        else:
            out.append(KeyEdit(suffix, key, attr, "changed", pd[key]))
    return True


def _name(edit: KeyEdit) -> str:
    return repr(edit.key) if edit.attr else edit.key


def restore_key_statements(
    root: RootInfo, ref: str, desc_literal: Callable[[Any], Optional[str]]
) -> Optional[list[str]]:
    """``monkeypatch`` statements putting the differing keys of ``ref`` (the root's value)
    back to their passing state (``desc_literal`` gives a described value's literal);
    None when a value to put back has no literal."""
    edits = key_edits(root.failing.desc, root.passing.desc)
    if edits is None:
        return None
    out: list[str] = []
    for e in edits:
        where = f"{ref}{e.container}"
        verb = "attr" if e.attr else "item"
        if e.change == "extra":
            out.append(f"monkeypatch.del{verb}({where}, {_name(e)}, raising=False)")
            continue
        literal = desc_literal(e.passing)
        if literal is None:
            return None
        out.append(f"monkeypatch.set{verb}({where}, {_name(e)}, {literal})")
    return out


def guard_key_statements(root: RootInfo, ref: str) -> Optional[tuple[list[str], list[str]]]:
    """Statements (and the fixtures they need) making a polluter's key changes to ``ref``
    undone when it ends; None when the difference is not a matter of keys."""
    edits = key_edits(root.failing.desc, root.passing.desc)
    if edits is None:
        return None
    out: list[str] = []
    fixtures: list[str] = []
    deep = False
    for e in edits:
        where = f"{ref}{e.container}"
        if e.change == "extra":  # absent now: dropped again when the test ends
            drop = f"vars({where})" if e.attr else where
            out.append(f"request.addfinalizer(lambda: {drop}.pop({_name(e)}, None))")
            fixtures.append("request")
            continue
        current = f"{where}.{e.key}" if e.attr else f"{where}[{e.key}]"
        node = _node(e.passing)
        if node is not None and node[0] != "atom":
            current, deep = f"copy.deepcopy({current})", True  # the test changes a copy
        verb = "attr" if e.attr else "item"
        out.append(f"monkeypatch.set{verb}({where}, {_name(e)}, {current})")
        fixtures.append("monkeypatch")
    return (["import copy"] if deep else []) + out, list(dict.fromkeys(fixtures))


def changed_in_place(root: RootInfo) -> bool:
    """Whether the root is an object whose attributes changed (not another object)."""
    fn, pn = _node(root.failing.desc), _node(root.passing.desc)
    return fn is not None and pn is not None and fn[:2] == pn[:2] and fn[0] == "obj"


def attribute_copy_guards(root: RootInfo, ref: str) -> Optional[list[str]]:
    """``monkeypatch.setattr`` of a deep copy of each attribute of object ``ref`` that
    differs and holds a container or an object (None when none does)."""
    fn, pn = _node(root.failing.desc), _node(root.passing.desc)
    if fn is None or pn is None or not changed_in_place(root):
        return None
    fd = {str(k): v for k, v in fn[2]}
    pd = {str(k): v for k, v in pn[2]}
    names = [k for k in sorted(pd) if k in fd and fd[k] != pd[k]]
    if not names or not all(k.isidentifier() for k in names):
        return None
    out = ["import copy"]
    for key in names:
        node = _node(pd[key])
        value = f"{ref}.{key}"
        if node is not None and node[0] != "atom":
            value = f"copy.deepcopy({value})"
        out.append(f"monkeypatch.setattr({ref}, {key!r}, {value})")
    return out if any("deepcopy" in s for s in out) else None
