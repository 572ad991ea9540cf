"""End to end: `detect --classify --budget` finds what pair strategies cannot show (a
brittle that needs three state-setters, a victim of two polluters whose cleaner runs
between them in the original order) in the search time the strategies leave, and names
the setter set and the polluter group with orders that reproduce them under pytest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import write_files

if TYPE_CHECKING:
    from conftest import CliRunner

EXPORT = "tests/test_m_export.py::test_export_knows_every_format"
CSV = "tests/test_a_csv.py::test_register_csv"
JSON = "tests/test_z_formats.py::test_register_json"
XML = "tests/test_z_formats.py::test_register_xml"
P1, CLEAR = "tests/test_n_flags.py::test_beta_on", "tests/test_n_flags.py::test_reset_flags"
P2, VICTIM = "tests/test_n_flags.py::test_dark_on", "tests/test_n_flags.py::test_home_page"

FILES = {
    "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
    "shop/__init__.py": "",
    "shop/formats.py": """
        _WRITERS = {}


        def register(name, writer):
            _WRITERS[name] = writer


        def known():
            return sorted(_WRITERS)
        """,
    "shop/flags.py": """
        ENABLED = set()


        def page():
            # Two experiments on at once break the page layout.
            return "broken" if {"beta", "dark"} <= ENABLED else "ok"
        """,
    "tests/test_a_csv.py": """
        from shop import formats


        def test_register_csv():
            formats.register("csv", str)
            assert "csv" in formats.known()
        """,
    "tests/test_m_export.py": """
        from shop import formats


        def test_export_knows_every_format():
            assert formats.known() == ["csv", "json", "xml"]
        """,
    "tests/test_n_flags.py": """
        from shop import flags


        def test_beta_on():
            flags.ENABLED.add("beta")


        def test_reset_flags():
            flags.ENABLED.clear()


        def test_dark_on():
            flags.ENABLED.add("dark")


        def test_home_page():
            assert flags.page() == "ok"
        """,
    "tests/test_z_formats.py": """
        from shop import formats


        def test_register_json():
            formats.register("json", repr)


        def test_register_xml():
            formats.register("xml", ascii)
        """,
}


def pytest_passes(project: Path, order: list[str]) -> bool:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         *order],
        cwd=project, capture_output=True, text=True,
    )  # fmt: skip
    return proc.returncode == 0


@pytest.mark.slow
def test_budget_left_finds_and_minimises_several_test_dependencies(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = write_files(tmp_path / "shop", FILES)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:randomly")
    # Without a budget the systematic strategies see neither.
    code, out, _ = cli("detect", project, "--strategy", "reverse", "--seed", "1")
    assert code == 0 and "always failing" in out and EXPORT in out
    assert VICTIM not in out
    code, out, err = cli(
        "detect", project, "--strategy", "reverse", "--seed", "1", "--budget", "300",
        "--classify", "--store", tmp_path / "second.db",
    )  # fmt: skip
    assert code == 1, err
    report = json.loads((project / ".orderdep" / "report.json").read_text())
    assert report["stats"]["strategies"][2:] == ["after-all", "random (budget left)"]
    found = {f["test"]: f for f in report["od_tests"]}
    assert set(found) == {EXPORT, VICTIM}
    brittle, victim = found[EXPORT], found[VICTIM]
    assert brittle["kind"] == "brittle" and brittle["state_setters"] == []
    (setters,) = brittle["state_setter_groups"]
    assert sorted(setters) == sorted([CSV, JSON, XML])
    assert victim["kind"] == "victim" and victim["polluters"] == []
    (group,) = victim["polluter_groups"]
    assert sorted(group) == sorted([P1, P2])
    assert "search stopped early" not in out
    # The minimal orders hold under plain pytest; one member short, they do not.
    assert pytest_passes(project, [*setters, EXPORT])
    assert not pytest_passes(project, [*setters[:-1], EXPORT])
    assert not pytest_passes(project, [*group, VICTIM])
    assert pytest_passes(project, [group[0], VICTIM])
