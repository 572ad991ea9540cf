"""A polluter that changes a function's mutable default in place (``headers={}`` filled by
one call) puts the function's defaults back when it ends.

Restoring the function itself would not do: it is the same object, holding the changed
default. The guard works on copies of its defaults; ``monkeypatch`` puts the originals
back afterwards.
"""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.repair.locate.root_info import RootInfo

# how the probe describes such a function
WITH_DEFAULTS, KEYWORD_DEFAULTS = " with defaults ", " and keyword defaults "


def changes_defaults(root: RootInfo) -> bool:
    """Whether ``root`` is a function whose mutable defaults differ between the orders."""
    views = (root.failing, root.passing)
    descs = [v.desc for v in views if v.present]
    if root.passing.type != "function" or len(descs) != 2:
        return False
    texts = [str(d[2]) for d in descs if isinstance(d, list) and len(d) == 3 and d[0] == "ref"]
    if len(texts) != 2 or WITH_DEFAULTS not in texts[1]:
        return False
    return texts[0].split(WITH_DEFAULTS)[0] == texts[1].split(WITH_DEFAULTS)[0]


def defaults_guard(root: RootInfo, ref: str) -> Optional[list[str]]:
    """The statements making a polluter put function ``ref``'s defaults back when it ends
    (with ``monkeypatch``; ``import copy`` first), or None when ``root`` is no such
    function."""
    if not changes_defaults(root):
        return None
    kw = KEYWORD_DEFAULTS in str(root.passing.desc[2])
    names = ["__defaults__", "__kwdefaults__"] if kw else ["__defaults__"]
    sets = [f"monkeypatch.setattr({ref}, {n!r}, copy.deepcopy({ref}.{n}))" for n in names]
    return ["import copy", *sets]
