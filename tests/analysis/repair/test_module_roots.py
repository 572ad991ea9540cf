"""A package's ``sys.modules`` entries as one root (module_roots)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.module_roots import (
    REIMPORTED,
    fold_packages,
    mark_reimported,
    package_guard,
    package_imports,
    package_of,
    package_root,
    restore_package,
)
from orderdep.analysis.repair.locate.probe_roots import sysmodule_root
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView

PKG = "odpkg_toolbox"


def entry(name: str, failing: bool, passing: bool, again: bool = False) -> RootInfo:
    desc = ["ref", "module", f"{name} from {name}.py" + (REIMPORTED if again else "")]
    f = ValueView(True, desc, None, "module") if failing else ValueView(False)
    p = ValueView(True, [*desc[:2], f"{name} from {name}.py"], None, "module")
    return RootInfo(sysmodule_root(name), "sysmodule", f, p if passing else ValueView(False))


def test_package_roots_are_named_and_parsed_back() -> None:
    root = package_root("toolbox")
    assert root == "sys.modules['toolbox.*']"
    assert package_of(root) == "toolbox"
    assert package_of(sysmodule_root("toolbox.store")) is None
    assert package_of("toolbox.store.Record") is None


def test_entries_imported_again_or_removed_fold_into_one_root_per_package() -> None:
    glob = RootInfo("toolbox.store.Record", "global", ValueView(True), ValueView(True))
    differing = [
        glob,
        entry("toolbox.records", True, True, again=True),
        entry("toolbox.store", False, True),
        entry("toolbox.text", True, False),
        entry("lazy.backend", True, False),  # only imported late: no package root
    ]
    folded = fold_packages(differing)
    # the package root stands for the entries imported again or removed
    kept = [glob.name, sysmodule_root("toolbox.text"), sysmodule_root("lazy.backend")]
    assert [r.name for r in folded] == [package_root("toolbox"), *kept]
    assert folded[0].kind == "sysmodule"
    assert folded[0].changes == (
        "1 module(s) imported again: toolbox.records",
        "1 module(s) removed: toolbox.store",
        "1 module(s) added: toolbox.text",
    )
    assert fold_packages([glob]) == [glob]


def test_a_module_object_imported_again_is_marked_in_its_description() -> None:
    old, new = types.ModuleType("m"), types.ModuleType("m")
    desc = ["ref", "module", "m from m.py"]
    assert mark_reimported(desc, old, {"m": old}, "m") == desc
    assert mark_reimported(desc, new, {"m": old}, "m")[2] == "m from m.py" + REIMPORTED
    assert mark_reimported(desc, new, {}, "m") == desc  # imported late, not again


@pytest.fixture
def package() -> Iterator[dict[str, types.ModuleType]]:
    top, sub = types.ModuleType(PKG), types.ModuleType(f"{PKG}.sub")
    top.sub = sub  # type: ignore[attr-defined]
    modules = {PKG: top, f"{PKG}.sub": sub}
    sys.modules.update(modules)
    yield modules
    for name in [n for n in sys.modules if n.partition(".")[0] == PKG]:
        del sys.modules[name]


def purge_and_import_again() -> None:
    for name in [n for n in sys.modules if n.partition(".")[0] == PKG]:
        del sys.modules[name]
    top, sub = types.ModuleType(PKG), types.ModuleType(f"{PKG}.sub")
    top.sub = sub  # type: ignore[attr-defined]
    sys.modules.update({PKG: top, f"{PKG}.sub": sub, f"{PKG}.extra": types.ModuleType("x")})


def test_restore_puts_back_the_module_objects_and_parent_attributes(
    package: dict[str, types.ModuleType],
) -> None:
    at_start = dict(sys.modules)
    purge_and_import_again()
    sys.modules[PKG].sub = "rebound"  # type: ignore[attr-defined]
    package[PKG].sub = types.ModuleType("other")  # type: ignore[attr-defined]
    restore_package(PKG, at_start)
    assert sys.modules[PKG] is package[PKG]
    assert sys.modules[f"{PKG}.sub"] is package[f"{PKG}.sub"]
    assert package[PKG].sub is package[f"{PKG}.sub"]  # type: ignore[attr-defined]
    assert f"{PKG}.extra" not in sys.modules


def test_the_guard_statements_keep_the_original_modules_through_a_purge(
    package: dict[str, types.ModuleType],
) -> None:
    ((stmts, fixtures),) = package_guard(PKG, ModuleNames.parse("import sys\n"))
    assert fixtures == ["monkeypatch"]
    assert stmts[0].startswith("for name, module in list(sys.modules.items()):")
    monkeypatch = pytest.MonkeyPatch()
    exec(compile("\n".join(stmts), "<guard>", "exec"), {"sys": sys, "monkeypatch": monkeypatch})
    purge_and_import_again()  # what the test (or its fixture) does
    monkeypatch.undo()
    assert sys.modules[PKG] is package[PKG]
    assert sys.modules[f"{PKG}.sub"] is package[f"{PKG}.sub"]
    # without an import of sys in the module, the statements import it
    ((stmts, _),) = package_guard(PKG, ModuleNames.parse("import os\n"))
    assert stmts[0] == "import sys"


def test_modules_only_the_passing_order_had_are_imported_for_a_brittle() -> None:
    (root,) = fold_packages([entry("toolbox.store", False, True), entry("toolbox.io", False, True)])
    assert root.missing_modules == ("toolbox.store", "toolbox.io")
    ((stmts, fixtures),) = package_imports(root)
    assert stmts == [
        "import importlib",
        "for name in ('toolbox.store', 'toolbox.io'):\n    importlib.import_module(name)",
    ]
    assert fixtures == []
    (one,) = fold_packages([entry("toolbox.store", False, True)])
    assert package_imports(one) == [
        (["import importlib", "importlib.import_module('toolbox.store')"], [])
    ]
    again = fold_packages([entry("toolbox.records", True, True, again=True)])
    assert package_imports(again[0]) == []  # nothing missing: nothing to import
