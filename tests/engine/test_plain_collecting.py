"""The plain runner collecting only the files given, as ``pytest FILE ...`` does."""

from __future__ import annotations

from pathlib import Path

from tests.engine.conftest import write_files

from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner

FILES = {
    "helpers/tool.py": "VALUE = 3\n",
    "test_a_setup.py": (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'helpers'))\n\n"
        "def test_first():\n    pass\n"
    ),
    "test_c_import.py": "import tool\n\n\ndef test_tool():\n    assert tool.VALUE == 3\n",
}
TOOL = "test_c_import.py::test_tool"


def test_a_file_that_fails_to_collect_errors_its_tests(tmp_path: Path) -> None:
    project = write_files(tmp_path / "p", FILES)
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    try:
        alone = plain.run_collecting([TOOL], ["test_c_import.py"])
        with_setter = plain.run_collecting(
            ["test_a_setup.py::test_first", TOOL], ["test_a_setup.py", "test_c_import.py"]
        )
        whole = plain.run([TOOL])  # the user's arguments: the whole suite collected
    finally:
        plain.close()
    (result,) = alone.results
    assert result.outcome.value == "error"
    assert result.message.startswith("error collecting its file: ") and "tool" in result.message
    assert [r.outcome.value for r in with_setter.results] == ["passed", "passed"]
    assert [r.outcome.value for r in whole.results] == ["passed"]
