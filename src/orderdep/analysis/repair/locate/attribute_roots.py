"""An object root changed in place, split into its attributes (a singleton's fields).

A module-level instance that tests register into (``Registry = Master()``, the
application object of a framework) is one root, but restoring it whole is seldom
faithful: a deep copy of it fails (it holds a lock, a socket, an engine), and the
shallow copy that takes its place shares the very lists and dicts the tests append to,
so "putting it back" puts back the polluted containers. Its attributes that differ are
roots of their own, ``pkg.mod.obj.attr``: each is captured, diffed and restored alone
(the container an attribute holds has a copy of its own), which names the field that
matters (``obj.contexts``, not the whole registry) and gives the patches a literal to
write (``[]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orderdep.analysis.repair.locate.root_info import RootInfo

MAX_ATTRIBUTES = 24
SPLIT_KINDS = ("global", "classattr")


def _node(desc: Any) -> Any:
    return desc if isinstance(desc, list) and len(desc) == 3 else None


def differing_attributes(failing: Any, passing: Any) -> list[str]:
    """Attributes whose descriptions differ, when both descriptions are of one object
    changed in place (same type); [] otherwise."""
    f, p = _node(failing), _node(passing)
    if f is None or p is None or f[0] != "obj" or f[:2] != p[:2]:
        return []
    fa = {str(k): v for k, v in f[2]}
    pa = {str(k): v for k, v in p[2]}
    out = []
    for key in sorted(set(fa) | set(pa)):
        if fa.get(key) == pa.get(key) or not key.isidentifier():
            continue
        if key.startswith("__") and key.endswith("__"):
            continue
        out.append(key)
    return out


def attribute_roots(roots: Sequence[RootInfo]) -> list[str]:
    """Names of the attribute roots of every object root in ``roots`` that changed in
    place (one per attribute that differs, at most :data:`MAX_ATTRIBUTES` in all)."""
    out: list[str] = []
    for root in roots:
        if root.kind not in SPLIT_KINDS or not root.module:
            continue
        for attr in differing_attributes(root.failing.desc, root.passing.desc):
            out.append(f"{root.name}.{attr}")
    return list(dict.fromkeys(out))[:MAX_ATTRIBUTES]
