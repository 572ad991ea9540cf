"""What the module fix hands a later brittle of the same file (repair.collection_fix):
the verified patch, naming the tests it also fixes, without running anything."""

from __future__ import annotations

from orderdep.analysis.repair.collection_fix import STRATEGY, collection_brittle, shared_fix
from orderdep.analysis.repair.fix_result import Fix
from orderdep.analysis.repair.verify.verify import Verification
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import COLLECTED_KEY, ODFinding

FIRST, SECOND, THIRD = (f"tests/test_v.py::test_{n}" for n in ("a", "b", "c"))


def _brittle(test: str) -> ODFinding:
    found = ODFinding(test, failing_order=[test], passing_order=["tests/test_s.py::t", test])
    found.kind = "brittle"
    found.extras[COLLECTED_KEY] = {"failing": ["tests/test_v.py"], "passing": "suite"}
    return found


def test_a_later_brittle_the_verification_passed_gets_the_same_patch() -> None:
    verified = Verification(
        ok=True, orders_run=2, improved=[SECOND, THIRD], runs_of="`pytest FILE`"
    )
    insertion = Insertion(FIRST, ("import test_s  # noqa: F401",), edit="module_top")
    fix = Fix(FIRST, STRATEGY, "import tests/test_s.py", [insertion], {}, verified)
    assert collection_brittle(_brittle(SECOND))
    result = shared_fix(_brittle(SECOND), [(_brittle(FIRST), fix)])
    assert result is not None and result.fix is not None
    assert result.fix.insertions == [insertion] and result.verified == 0
    assert result.fix.verification.improved == [FIRST, THIRD]  # not itself
    assert result.fix.verification.summary() == (
        f"verified in 2 runs of `pytest FILE`; also fixes {FIRST}, {THIRD}"
    )
    other = ODFinding("tests/test_w.py::test_d", failing_order=[], passing_order=[])
    assert shared_fix(other, [(_brittle(FIRST), fix)]) is None
    assert not collection_brittle(other)
