"""A package's ``sys.modules`` entries as one root: modules purged and imported again.

A test (or its fixture) that pops a package's modules from ``sys.modules`` and imports
them again leaves two generations of module objects behind: test modules keep the ones
they imported at collection, the package's own code now uses new ones (``pickle`` finds
a class that "is not the same object", ``isinstance`` fails across the two). No single
global explains that, nor does any single entry: the root is every entry of the package,

``sys.modules['pkg.*']``
    the entries named ``pkg`` or ``pkg.<anything>``. The debugger folds the differing
    ``sys.modules['pkg.x']`` roots of one top-level package into it (:func:`fold_packages`);
    the probe restores it by putting back the module objects of position 0 (and the
    parent packages' attributes naming them, which ``from pkg import x`` reads);
    a polluter (or the fixture that purges) saves the entries and puts them back when it
    ends (:func:`package_guard`).

A module object imported again is marked as such in its capture (:data:`REIMPORTED`),
so the debugger sees the difference although both generations come from the same file.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

from orderdep.analysis.repair.locate.module_names import ModuleNames, module_reference
from orderdep.analysis.repair.locate.probe_roots import sysmodule_name, sysmodule_root

PACKAGE_SUFFIX = ".*"
REIMPORTED = " (imported again)"

if TYPE_CHECKING:  # the debugger folds with this module; the probe only restores
    from orderdep.analysis.repair.locate.root_info import RootInfo

if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Stmts = tuple[list[str], list[str]]


def package_root(package: str) -> str:
    """The root naming every ``sys.modules`` entry of top-level package ``package``."""
    return sysmodule_root(package + PACKAGE_SUFFIX)


def package_of(root: str) -> Optional[str]:
    """The package of a ``sys.modules['pkg.*']`` root (None for other roots)."""
    name = sysmodule_name(root)
    if name is None or not name.endswith(PACKAGE_SUFFIX):
        return None
    return name[: -len(PACKAGE_SUFFIX)]


def in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def mark_reimported(desc: Any, module: object, at_start: Mapping[str, Any], name: str) -> Any:
    """``desc`` of entry ``name`` marked when its object is not the one of position 0."""
    before = at_start.get(name)
    if before is None or before is module or not isinstance(desc, list) or len(desc) != 3:
        return desc
    return [desc[0], desc[1], f"{desc[2]}{REIMPORTED}"]


def restore_package(package: str, at_start: Mapping[str, Any]) -> None:
    """Put the package's ``sys.modules`` entries back to those of position 0, in the probe.

    Entries added since are removed; a parent package's attribute naming a submodule is
    set back too (``from pkg import sub`` reads the attribute, not ``sys.modules``).
    """
    for name in [n for n in sys.modules if in_package(n, package) and n not in at_start]:
        del sys.modules[name]
    for name, module in at_start.items():
        if not in_package(name, package):
            continue
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent and parent in at_start:
            try:
                setattr(at_start[parent], child, module)
            except Exception:  # a parent that refuses attributes: sys.modules is restored
                pass


def fold_packages(differing: Sequence[RootInfo]) -> list[RootInfo]:
    """``differing`` with one ``sys.modules['pkg.*']`` root per top-level package whose
    entries were imported again or removed, put first in place of those entries (an entry
    only imported late stays a root of its own): restoring entries one by one cannot
    explain a failure that needs the whole generation of modules back."""
    from orderdep.analysis.repair.locate.root_info import RootInfo
    from orderdep.analysis.repair.locate.value_view import ValueView

    by_package: dict[str, list[RootInfo]] = {}
    for root in differing:
        name = sysmodule_name(root.name) if root.kind == "sysmodule" else None
        if name is not None and package_of(root.name) is None:
            by_package.setdefault(name.partition(".")[0], []).append(root)
    folded: list[RootInfo] = []
    replaced: set[str] = set()  # entries the package root stands for
    for package, roots in sorted(by_package.items()):
        again = [r for r in roots if _reimported(r)]
        removed = [r for r in roots if r.passing.present and not r.failing.present]
        added = [r for r in roots if r.failing.present and not r.passing.present]
        if not (again or removed):  # only modules imported late: the single roots do
            continue
        replaced.update(r.name for r in [*again, *removed])
        changes = [
            f"{len(rs)} module(s) {how}: {_names(rs)}"
            for rs, how in ((again, "imported again"), (removed, "removed"), (added, "added"))
            if rs
        ]
        view = ValueView(True, ["atom", "modules", package + PACKAGE_SUFFIX], None, "modules")
        missing = tuple(str(sysmodule_name(r.name)) for r in removed)
        root = RootInfo(
            package_root(package), "sysmodule", view, view, tuple(changes),
            missing_modules=missing,
        )  # fmt: skip
        folded.append(root)
    return [*folded, *(r for r in differing if r.name not in replaced)]


def _reimported(root: RootInfo) -> bool:
    desc = root.failing.desc
    return isinstance(desc, list) and len(desc) == 3 and str(desc[2]).endswith(REIMPORTED)


def _names(roots: Sequence[RootInfo]) -> str:
    names = [str(sysmodule_name(r.name)) for r in roots]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def package_imports(root: RootInfo) -> list[Stmts]:
    """Statements importing the modules of a package root that only the passing order had
    (a test needing what importing them registers: classes, plugins)."""
    if not root.missing_modules:
        return []
    listed = ", ".join(repr(m) for m in root.missing_modules)
    if len(root.missing_modules) == 1:
        return [(["import importlib", f"importlib.import_module({listed})"], [])]
    loop = f"for name in ({listed}):\n    importlib.import_module(name)"
    return [(["import importlib", loop], [])]


def package_guard(package: str, names: ModuleNames) -> list[Stmts]:
    """Statements saving the package's ``sys.modules`` entries now; monkeypatch puts them
    (and the parent packages' attributes) back when the test or fixture ends."""
    sys_ref, imports = module_reference("sys", names)
    loop = (
        f"for name, module in list({sys_ref}.modules.items()):\n"
        f"    if name == {package!r} or name.startswith({package + '.'!r}):\n"
        f"        monkeypatch.setitem({sys_ref}.modules, name, module)\n"
        f"        parent, _, child = name.rpartition('.')\n"
        f"        if parent in {sys_ref}.modules:\n"
        f"            monkeypatch.setattr({sys_ref}.modules[parent], child, module, raising=False)"
    )
    return [([*imports, loop], ["monkeypatch"])]
