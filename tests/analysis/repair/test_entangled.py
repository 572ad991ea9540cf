"""Two OD tests whose patches hold only together (analysis/repair/entangled.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orderdep.analysis.repair.entangled import repair_entangled
from orderdep.analysis.repair.fix_result import Fix, FixResult, Rejected
from orderdep.analysis.repair.verify.verify import Target, Verification
from orderdep.analysis.repair.write.patches import Insertion

SOURCE = (
    "import pytest\n\n\n@pytest.fixture(scope='module')\ndef book():\n    return []\n\n\n"
    "def test_first(book):\n    pass\n\n\ndef test_third(book):\n    pass\n"
)
FIRST, THIRD = "tests/test_t.py::test_first", "tests/test_t.py::test_third"
NARROW = Insertion("tests/test_t.py::book", (), edit="narrow")
SET_UP = Insertion(THIRD, ("book.append(1)",))
OTHER = Insertion(THIRD, ("book.append(2)",))


class FakeVerifier:
    """Holds only when the narrowing and the set-up are in the patch together."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def verify(self, changes: Any, target: Target, *, also: Any = ()) -> Verification:
        self.calls.append((target.test, [t.test for t in also]))
        text = changes["tests/test_t.py"][1]
        ok = "scope='module'" not in text and "book.append(1)" in text
        return Verification(ok=ok, problems=[] if ok else ["still failed"], improved=[THIRD])


class FakeRepairer:
    def __init__(self, project: Path) -> None:
        self.project = project
        self.verifier = FakeVerifier()


def _project(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_t.py").write_text(SOURCE)
    return tmp_path


def _result(test: str, kind: str, rejected: list[Rejected]) -> FixResult:
    return FixResult(test, kind, target=Target(test, [[test]], [[test]]), rejected=rejected)


def test_a_patch_that_broke_an_unrepaired_test_is_tried_with_that_tests_candidates(
    tmp_path: Path,
) -> None:
    repairer = FakeRepairer(_project(tmp_path))
    victim = _result(FIRST, "victim", [Rejected("fixture", "narrows book", [NARROW], [THIRD])])
    brittle = _result(
        THIRD,
        "brittle",
        [
            Rejected("cleaner", "other set-up", [OTHER], []),
            Rejected("cleaner", "the set-up", [SET_UP], []),
        ],
    )
    paired = repair_entangled(repairer, [victim, brittle], lambda m: None)  # type: ignore[arg-type]
    assert [(r.test, len(new)) for r, new in paired] == [(FIRST, 2), (THIRD, 0)]
    assert victim.fix is not None and brittle.fix is not None
    assert victim.fix.insertions == brittle.fix.insertions == [NARROW, SET_UP]
    assert brittle.fix.test == THIRD and THIRD not in brittle.fix.verification.improved
    # both tests' orders in each check: the first pair failed, the second held
    assert repairer.verifier.calls == [(FIRST, [THIRD]), (FIRST, [THIRD])]
    assert any("other set-up" in n for n in victim.notes)


def test_a_partners_verified_fix_goes_with_it_and_is_not_written_again(tmp_path: Path) -> None:
    repairer = FakeRepairer(_project(tmp_path))
    victim = _result(FIRST, "victim", [Rejected("fixture", "narrows book", [NARROW], [THIRD])])
    brittle = _result(THIRD, "brittle", [])
    brittle.fix = Fix(THIRD, "restore", "the set-up", [SET_UP], {}, Verification(ok=True))
    paired = repair_entangled(repairer, [victim, brittle], lambda m: None)  # type: ignore[arg-type]
    assert [(r.test, new) for r, new in paired] == [(FIRST, [NARROW])]
    assert victim.fix is not None and victim.fix.insertions == [NARROW, SET_UP]


def test_a_patch_that_broke_a_test_no_report_names_is_left_alone(tmp_path: Path) -> None:
    repairer = FakeRepairer(_project(tmp_path))
    victim = _result(
        FIRST, "victim", [Rejected("fixture", "narrows book", [NARROW], ["tests/test_t.py::x"])]
    )
    assert repair_entangled(repairer, [victim], lambda m: None) == []  # type: ignore[arg-type]
    assert victim.fix is None and repairer.verifier.calls == []
