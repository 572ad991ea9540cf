"""Merging the fixes of several OD tests into one patch set."""

from __future__ import annotations

from pathlib import Path

from orderdep.analysis.repair.patches import Insertion
from orderdep.analysis.repair.patchset import distinct, merged_changes

GUARD = ("saved = copy.deepcopy(data.rows)", "request.addfinalizer(lambda: None)")


def test_the_same_guard_for_two_victims_is_inserted_once(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_p():\n    pass\n")
    first = Insertion("tests/test_a.py::test_p", GUARD, ("request",), comment="For test_v1.")
    second = Insertion("tests/test_a.py::test_p", GUARD, ("request",), comment="For test_v2.")
    other = Insertion("tests/test_a.py::test_p", ("x = 1",), comment="For test_v3.")
    assert distinct([first, second, other, first]) == [first, other]
    (text,) = [new for _, new in merged_changes(tmp_path, [first, second, other]).values()]
    assert text.count("saved = copy.deepcopy(data.rows)") == 1
    assert "# For test_v1." in text and "# For test_v2." not in text
