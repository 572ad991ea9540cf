"""``fix`` repairs a test that fails as ``pytest FILE`` in its own file: what the
state-setter's module does at import goes to the top of the brittle's file, verified in
fresh pytests that collect only that file; the printed command that applies it is run
here, and plain pytest then passes the file alone."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from collection_project import NEEDS_GROUP, REAL, TOOL, collection_project

if TYPE_CHECKING:
    from conftest import CliRunner


def _pytest(root: Path, *args: str) -> int:
    """Plain pytest's exit code, from ``root``."""
    command = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    return subprocess.run([*command, *args], cwd=root, capture_output=True).returncode


@pytest.mark.slow
def test_fix_gives_the_brittle_file_what_the_setter_module_does_at_import(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    root = collection_project(tmp_path / "p")
    assert _pytest(root, "tests/test_c_import.py") != 0  # fails as `pytest FILE`
    code, out, err = cli("detect", root, "--classify", "--seed", "1", "--budget", "60")
    assert code == 1, out + err

    code, out, err = cli("fix", root, "--budget", "120")
    assert code == 1, out + err  # printed, not applied
    for test in (TOOL, NEEDS_GROUP):
        assert f"fix for {test} (brittle): module, " in out, out
    assert "what tests/test_a_setup.py does at import; verified in 2 runs of `pytest FILE`" in out
    assert '+sys.path.insert(0, os.path.join(os.path.dirname(__file__), "helpers"))' in out
    assert '+registry.GROUPS["csv"] = object()' in out
    assert f"skipping {REAL}: it fails only when another module is collected with it" in out
    assert "patch set: 2 patch(es) for 2 OD test(s) hold together" in out
    assert "sys.path" not in (root / "tests" / "test_c_import.py").read_text()  # not applied

    printed = [line.split("or: ", 1)[1] for line in out.splitlines()
               if line.strip().startswith("or: orderdep fix") and f"--test {TOOL}" in line]  # fmt: skip
    assert printed and "--strategy module" in printed[0] and printed[0].endswith("--apply")
    code, out, err = cli(*shlex.split(printed[0])[1:])
    assert code == 0, out + err
    text = (root / "tests" / "test_c_import.py").read_text()
    assert text.index("sys.path.insert(") < text.index("import tool"), text
    assert "registry" not in text  # the statement it needs, not the other one
    assert _pytest(root, "tests/test_c_import.py") == 0  # passes as `pytest FILE` now
    assert _pytest(root, "--deselect", REAL) == 0  # the suite keeps its outcomes
    fixes = json.loads((root / ".orderdep" / "fixes.json").read_text())
    assert TOOL in json.dumps(fixes)


@pytest.mark.slow
def test_a_class_defined_in_another_test_module_is_imported_from_it(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    """The state-setter's module defines a subclass a registry finds: nothing to copy,
    so the brittle's file imports that module."""
    from clitools import write_files

    root = write_files(
        tmp_path / "p",
        {
            "pytest.ini": "[pytest]\npythonpath = .\ntestpaths = tests\n",
            "plugins.py": """
                class Base:
                    pass


                def find(name):
                    return [c for c in Base.__subclasses__() if c.__name__ == name]
            """,
            "tests/test_a_defs.py": """
                from plugins import Base


                class Csv(Base):
                    pass


                def test_defined():
                    pass
            """,
            "tests/test_b_uses.py": """
                from plugins import find


                def test_finds_csv():
                    assert find("Csv")
            """,
        },
    )
    brittle = "tests/test_b_uses.py::test_finds_csv"
    code, out, err = cli("detect", root, "--classify", "--seed", "1", "--budget", "60")
    assert code == 1, out + err
    code, out, err = cli("fix", root, "--budget", "60", "--apply")
    assert code == 0, out + err
    assert f"fix for {brittle} (brittle): module, " in out
    text = (root / "tests" / "test_b_uses.py").read_text()
    assert "# import tests/test_a_defs.py (for what it does at import)" in text, text
    assert "import test_a_defs  # noqa: F401\n" in text
    assert _pytest(root, "tests/test_b_uses.py") == 0
    assert _pytest(root) == 0
