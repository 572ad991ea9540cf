"""A report's ids put under the directory pytest's rootdir is in (``tests/pytest.ini``),
as the manifest writes them (benchmarks/corpus_ids.py)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from corpus_ids import as_listed, id_prefix  # noqa: E402

ENTRY = {"pytest_args": ["tests/unit"], "known": [{"test": "tests/unit/test_main.py::test_finish"}]}
REPORT = {
    "tests": ["unit/test_main.py::test_initialise", "unit/test_main.py::test_finish"],
    "od_tests": [
        {
            "test": "unit/test_main.py::test_finish",
            "state_setters": ["unit/test_main.py::test_initialise"],
            "state_setter_groups": [["unit/test_main.py::test_initialise"]],
            "failing_order": ["unit/test_main.py::test_finish"],
        }
    ],
}


def _checkout(root: Path) -> Path:
    (root / "tests/unit").mkdir(parents=True)
    (root / "tests/unit/test_main.py").write_text("", encoding="utf-8")
    return root


def test_ids_under_a_rootdir_inside_the_checkout_get_its_path(tmp_path: Path) -> None:
    source = _checkout(tmp_path / "src")
    assert id_prefix(source, REPORT["tests"], ENTRY) == "tests"
    listed = as_listed(REPORT, source, ENTRY)
    (finding,) = listed["od_tests"]
    assert finding["test"] == "tests/unit/test_main.py::test_finish"
    assert finding["state_setters"] == ["tests/unit/test_main.py::test_initialise"]
    assert finding["state_setter_groups"] == [["tests/unit/test_main.py::test_initialise"]]
    assert listed["tests"][0] == "tests/unit/test_main.py::test_initialise"


def test_ids_of_the_checkout_itself_stay(tmp_path: Path) -> None:
    source = _checkout(tmp_path / "src")
    report = {"tests": ["tests/unit/test_main.py::test_finish"], "od_tests": []}
    assert as_listed(report, source, ENTRY) is report
