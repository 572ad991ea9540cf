"""Editable installs pointed at the working copy (engine.redirect)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from orderdep.engine import redirect as rd


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    origin, copy = tmp_path / "project", tmp_path / "copy"
    for root in (origin, copy):
        (root / "src" / "shop").mkdir(parents=True)
    (origin / ".venv" / "lib").mkdir(parents=True)  # not copied
    return origin, copy


def test_a_path_moves_only_when_it_lies_under_the_project_and_exists_in_the_copy(
    trees: tuple[Path, Path],
) -> None:
    origin, copy = trees
    assert rd.moved(str(origin / "src"), origin, copy) == str(copy / "src")
    assert rd.moved(str(origin / ".venv" / "lib"), origin, copy) is None
    assert rd.moved(str(origin.parent / "elsewhere"), origin, copy) is None


def test_sys_path_entries_and_finder_maps_point_at_the_copy(
    trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin, copy = trees
    finder_module = types.ModuleType("__editable___shop_0_1_finder")
    finder_module.MAPPING = {"shop": str(origin / "src" / "shop")}  # type: ignore[attr-defined]
    finder_module.NAMESPACES = {"ns": [str(origin / "src")]}  # type: ignore[attr-defined]

    class EditableFinder:
        pass

    EditableFinder.__module__ = finder_module.__name__
    monkeypatch.setitem(sys.modules, finder_module.__name__, finder_module)
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, EditableFinder])
    monkeypatch.setattr(sys, "path", [str(origin / "src"), *sys.path])
    assert rd.redirect(str(origin), str(copy)) == 3
    assert sys.path[0] == str(copy / "src")
    assert {"shop": str(copy / "src" / "shop")} == finder_module.MAPPING  # type: ignore[attr-defined]
    assert {"ns": [str(copy / "src")]} == finder_module.NAMESPACES  # type: ignore[attr-defined]
    assert rd.redirect(str(origin), str(copy)) == 0  # nothing left to move


def test_modules_imported_from_the_project_before_the_redirect_are_named(
    trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin, _ = trees
    early = types.ModuleType("shop")
    early.__file__ = str(origin / "src" / "shop" / "__init__.py")
    monkeypatch.setitem(sys.modules, "shop", early)
    assert rd.imported_from(str(origin)) == ["shop"]
