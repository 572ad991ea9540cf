"""The project's own packages in a non-editable install (engine.installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orderdep.engine import installed
from orderdep.engine.installed import installed_packages, package_paths, project_name


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[project]\nname = "shop"\nversion = "1"\n'),
        ("setup.cfg", "[metadata]\nname = shop\n"),
        ("setup.py", "from setuptools import setup\nsetup(name='shop', version='1')\n"),
    ],
)
def test_the_project_name_is_read_where_projects_declare_it(
    tmp_path: Path, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text)
    assert project_name(str(tmp_path)) == "shop"


def test_a_setup_cfg_without_a_name_leaves_it_to_setup_py(tmp_path: Path) -> None:
    """A ``[metadata]`` table holding only the license file, the name in ``setup.py``."""
    (tmp_path / "setup.cfg").write_text("[metadata]\nlicense_files = LICENSE\n\n[flake8]\n")
    (tmp_path / "setup.py").write_text("setup(\n    name=\"shop\",\n    version='1',\n)\n")
    (tmp_path / "pyproject.toml").write_text("[build-system]\nrequires = ['setuptools']\n")
    assert project_name(str(tmp_path)) == "shop"


def test_without_tomllib_the_project_table_s_name_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.9 and 3.10 have no tomllib: the ``[project]`` table's name line is read."""
    monkeypatch.setattr(installed, "tomllib", None)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.black]\nname = "not-this"\n\n[project]\nversion = "1"\nname = "shop"\n'
        '\n[tool.x]\nname = "nor-this"\n'
    )
    assert project_name(str(tmp_path)) == "shop"
    (tmp_path / "pyproject.toml").write_text('[tool.black]\nname = "not-this"\n')
    assert project_name(str(tmp_path)) is None


def test_no_declared_name_and_an_uninstalled_name_give_nothing(tmp_path: Path) -> None:
    assert project_name(str(tmp_path)) is None
    assert installed_packages(str(tmp_path)) == frozenset()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "no-such-dist-here"\n')
    assert installed_packages(str(tmp_path)) == frozenset()


def test_an_installed_distribution_gives_its_import_names_and_their_place(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pytest"\n')
    names = installed_packages(str(tmp_path))  # pytest is installed, not editable
    assert {"pytest", "_pytest"} <= names
    paths = package_paths(frozenset({"_pytest"}))
    assert len(paths) == 1 and paths[0].endswith("/_pytest/")
