"""``why``'s search on the pure simulation: victims, groups, brittles, ND, bad orders."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Optional

import pytest
from tests.analysis.counting import CountingModel

from orderdep.analysis.why.search import NotReproducedError, why
from orderdep.core.odmodel import ODSpec
from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.suite import Suite
from orderdep.engine.probe import ProbeSpec
from orderdep.errors import UsageError
from orderdep.synth.model import ModelExecutor


def tid(module: str, name: str) -> str:
    return f"tests/test_{module}.py::test_{name}"


FILLERS = [tid(f"m{i % 7}", f"f{i}") for i in range(400)]
V, P = tid("a", "victim"), tid("b", "polluter")
VG, G1, G2 = tid("a", "victim_group"), tid("b", "g1"), tid("c", "g2")
S, B = tid("a", "setter"), tid("a", "brittle")
S3, S4, S5, B2 = tid("d", "s3"), tid("d", "s4"), tid("d", "s5"), tid("d", "brittle2")
LATE_S, LATE_B = tid("z", "late_brittle"), tid("zz", "late_setter")
ND, BROKEN = tid("a", "nd"), tid("a", "broken")
IDS = [S, B, S3, S4, S5, B2, LATE_S, *FILLERS, P, G1, G2, V, VG, ND, BROKEN, LATE_B]
SPECS = [
    ODSpec(V, "victim", polluters=[P]),
    ODSpec(VG, "victim", polluter_groups=[[G1, G2]]),
    ODSpec(B, "brittle", state_setters=[S]),
    ODSpec(B2, "brittle", state_setter_groups=[[S3, S4, S5]]),
    ODSpec(LATE_S, "brittle", state_setters=[LATE_B]),
]


def model(**kw: object) -> ModelExecutor:
    return ModelExecutor(Suite.from_ids(IDS), SPECS, nd_tests=[ND], always_failing=[BROKEN], **kw)  # type: ignore[arg-type]


def shuffled(*, first: Sequence[str] = (), last: Sequence[str], seed: int = 3) -> list[str]:
    rest = [t for t in IDS if t not in first and t not in last]
    random.Random(seed).shuffle(rest)
    return [*first, *rest[:200], *last, *rest[200:]]


def test_a_victim_in_a_long_order_gets_its_one_polluter_by_bisection() -> None:
    ex = model()
    order = shuffled(last=[P, V])
    result = why(ex, V, order)
    assert (result.verdict, result.culprits) == ("victim", [P])
    assert result.failing_order == [P, V] and result.passing_order == [V]
    # bisection: at most 2 log2(n) orders for the search, plus 1 + 3 + 2 * 5 checks
    search = result.orders_run - 14
    assert 0 < search <= 2 * math.log2(len(result.given)) + 2


def test_a_polluter_group_is_found_whole_and_in_order() -> None:
    order = shuffled(first=[G1], last=[G2, VG])
    result = why(model(), VG, order)
    assert (result.verdict, result.culprits) == ("victim", [G1, G2])
    assert result.failing_order == [G1, G2, VG]


def test_a_brittle_gets_its_state_setter_from_the_collection_order() -> None:
    order = shuffled(last=[B, S])  # the setter ran after it
    result = why(model(), B, order)
    assert (result.verdict, result.culprits) == ("brittle", [S])
    assert result.failing_order == [B] and result.passing_order == [S, B]


def test_a_brittle_gets_its_ordered_set_of_state_setters() -> None:
    order = shuffled(first=[S5, S4], last=[B2, S3])
    result = why(model(), B2, order)
    assert (result.verdict, result.culprits) == ("brittle", [S3, S4, S5])


def test_a_brittle_whose_setter_comes_later_in_collection_order_is_found_after_all() -> None:
    result = why(model(), LATE_S, shuffled(last=[LATE_S]))
    assert (result.verdict, result.culprits) == ("brittle", [LATE_B])


def test_a_test_failing_everywhere_is_not_order_dependent() -> None:
    result = why(model(), BROKEN, shuffled(last=[BROKEN]))
    assert result.verdict == "always-fails" and not result.found
    assert "not order-dependent" in result.notes[0]


@pytest.mark.parametrize("seed", range(40))
def test_a_nondeterministic_failure_is_never_called_order_dependent(seed: int) -> None:
    try:
        result = why(model(seed=seed), ND, shuffled(last=[ND], seed=seed))
    except NotReproducedError as exc:
        assert "nondeterministic (ND)" in str(exc)
        return
    assert result.verdict == "nd" and not result.found and not result.culprits
    assert "nondeterministic (ND), not order-dependent" in " ".join(result.notes)


def test_bad_orders_are_usage_errors() -> None:
    with pytest.raises(UsageError, match=r"is not in the failing order \(2 tests\)"):
        why(model(), V, [P, S])
    with pytest.raises(UsageError) as info:
        why(model(), V, [tid("b", "old_name"), V])
    assert "\n" not in str(info.value) and "renamed or removed" in str(info.value)
    with pytest.raises(NotReproducedError, match="passes in the given order"):
        why(model(), V, [S, V])  # the order passes


class ForkMisses(ModelExecutor):
    """The victim passes under the 'fork runner' and fails in fresh processes."""

    runner = "fork"

    def use_subprocess(self) -> None:
        self.runner = "subprocess"

    def run(self, order: Sequence[str], *, probe: Optional[ProbeSpec] = None) -> OrderResult:
        result = super().run(order, probe=probe)
        if self.runner == "fork":
            result.results = [TestResult(r.test, Outcome.PASSED, 0.0, "") for r in result]
        return result


def test_a_failure_the_fork_runner_misses_is_reproduced_in_fresh_processes() -> None:
    ex = ForkMisses(Suite.from_ids(IDS), SPECS)
    progress: list[str] = []
    result = why(ex, V, shuffled(last=[P, V]), progress=progress.append)
    assert result.runner == "subprocess" and result.culprits == [P]
    assert any("trying fresh processes" in p for p in progress)


def test_a_victim_of_many_tests_together_ends_with_a_long_order_marked_not_minimal() -> None:
    ids = [tid("r", f"t{i:03d}") for i in range(120)] + [tid("r", "v")]

    result = why(CountingModel(ids, ids[-1], needed=30), ids[-1], ids)  # any 30 before it
    assert result.verdict == "victim" and not result.minimal
    assert 30 <= len(result.culprits) < 120 and result.failing_order[-1] == ids[-1]
    assert any("more than 4 of the tests before it together" in n for n in result.notes)
    assert result.orders_run < 100  # without the cap: about 30 rounds of log2(120) orders
