"""The plain runner collecting only the files given, as ``pytest FILE ...`` does."""

from __future__ import annotations

import time
from pathlib import Path

from tests.engine.conftest import write_files

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import file_runs
from orderdep.engine.config import EngineConfig
from orderdep.engine.interrupts import stopped_after
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


def test_the_file_runs_a_budget_s_end_finds_are_killed_and_count_what_ran(
    tmp_path: Path,
) -> None:
    """Two files planned within a budget of 60 s (the smaller first), the second one's
    last test hanging for 60: killed 4 s in, the runs count the file whose tests ended and
    nothing of the other."""
    files = {
        "test_a_quick.py": "def test_1():\n    pass\n",
        "test_b_hangs.py": (
            "import time\n\n\ndef test_2():\n    pass\n\n\ndef test_3():\n    time.sleep(60)\n"
        ),
    }
    project = write_files(tmp_path / "p", files)
    ids = ["test_a_quick.py::test_1", "test_b_hangs.py::test_2", "test_b_hangs.py::test_3"]
    plain = PlainRunner(EngineConfig(project), tmp_path / "plain")
    started = time.monotonic()
    try:
        with stopped_after(plain, 4.0):
            runs = file_runs(plain, ids, Budget(60.0))
            after = plain.run_collecting(ids[:1], ["test_a_quick.py"])  # killed as it starts
    finally:
        plain.close()
    assert time.monotonic() - started < 30.0
    assert runs.run == 1 and not runs.complete and runs.failing == {}
    assert runs.passed == set(ids[:1])  # the other file's first test ran, not its file
    assert after.interrupted
