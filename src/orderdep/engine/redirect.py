"""The working copy's code is the code that runs: editable installs redirected to the copy.

Orders run in a private copy of the project (:mod:`orderdep.engine.sandbox`). A project
installed in development mode resolves its package to the original tree, not to the copy:

* a path in a ``.pth`` file (setuptools' ``pip install -e .`` in its usual mode, hatchling,
  flit, pdm, poetry) puts ``ORIGIN/src`` on ``sys.path`` before any test runs;
* an editable *finder* (setuptools' strict or ``package-dir`` mode, the ``editables``
  redirector of hatchling) maps a package name to ``ORIGIN/...`` in an import hook.

Then the tests would import the original tree, while state capture, the probes and the
debugger look at the copy, and a patch verified in the copy would not be what the tests
imported. :func:`redirect` runs in each test process as soon as orderdep's plugin loads
(before any conftest or test module is imported): it points every such path and mapping
under the original tree at the same place in the copy. What was imported from the
original tree before that (a plugin of the project's own, say) cannot be redirected; it
is listed by :func:`imported_from`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, MutableMapping
from pathlib import Path
from typing import Any, Optional

#: Module globals of editable finders that map names to paths (setuptools' finders).
FINDER_GLOBALS = ("MAPPING", "NAMESPACES")
#: Class attributes of redirecting finders (the ``editables`` library's).
FINDER_ATTRIBUTES = ("_redirections",)


def moved(path: str, origin: Path, copy: Path) -> Optional[str]:
    """``path`` at the same place under ``copy`` when it lies under ``origin`` and exists
    there (else None: a virtual environment inside the project is not copied, and the
    interpreter's own paths stay where they are)."""
    real = Path(os.path.realpath(path))
    if _inside(real, Path(os.path.realpath(sys.prefix))):
        return None
    try:
        rel = real.relative_to(origin)
    except ValueError:
        return None
    target = copy / rel
    return str(target) if os.path.exists(target) else None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _rewrite(mapping: MutableMapping[Any, Any], origin: Path, copy: Path) -> int:
    """Point the str (or list of str) values of ``mapping`` under ``origin`` at ``copy``."""
    changed = 0
    for key, value in list(mapping.items()):
        if isinstance(value, str):
            new = moved(value, origin, copy)
            if new is not None:
                mapping[key] = new
                changed += 1
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            news = [moved(v, origin, copy) or v for v in value]
            if news != value:
                mapping[key] = news
                changed += 1
    return changed


def _finder_maps(finders: Iterable[object]) -> list[MutableMapping[Any, Any]]:
    """The name -> path maps behind import hooks (module globals or class attributes)."""
    maps: list[MutableMapping[Any, Any]] = []
    seen: set[int] = set()
    for finder in finders:
        owner = finder if isinstance(finder, type) else type(finder)
        module = sys.modules.get(getattr(owner, "__module__", "") or "")
        candidates = [getattr(module, name, None) for name in FINDER_GLOBALS]
        candidates += [getattr(owner, name, None) for name in FINDER_ATTRIBUTES]
        for found in candidates:
            if isinstance(found, dict) and id(found) not in seen:
                seen.add(id(found))
                maps.append(found)
    return maps


def redirect(origin: str, copy: str) -> int:
    """Point ``sys.path`` entries and editable finders under ``origin`` at ``copy``;
    return how many were changed."""
    root, tree = Path(os.path.realpath(origin)), Path(os.path.realpath(copy))
    if root == tree:
        return 0
    changed = 0
    for i, entry in enumerate(list(sys.path)):
        new = moved(entry, root, tree) if entry else None
        if new is not None and new != entry:
            sys.path[i] = new
            changed += 1
    for mapping in _finder_maps([*sys.meta_path, *sys.path_hooks]):
        changed += _rewrite(mapping, root, tree)
    if changed:
        sys.path_importer_cache.clear()
    return changed


def imported_from(origin: str) -> list[str]:
    """Modules already imported from under ``origin`` (too late to redirect)."""
    root = Path(os.path.realpath(origin))
    prefix = Path(os.path.realpath(sys.prefix))
    out = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            real = Path(os.path.realpath(file))
            if _inside(real, root) and not _inside(real, prefix):
                out.append(name)
    return sorted(out)


__all__ = ["imported_from", "moved", "redirect"]
