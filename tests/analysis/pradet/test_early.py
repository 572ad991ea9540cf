"""Before refinement: the writers of what a test read, for tests whose outcome differs
between the collected runs."""

from __future__ import annotations

from test_pipeline_e2e import ProbedModel, manifest_pairs

from orderdep.analysis.pradet.datadeps import CROWDED, TestAccess
from orderdep.analysis.pradet.early import writers_before
from orderdep.analysis.pradet.pipeline import run_pradet
from orderdep.core.odmodel import ODSpec


def test_writers_before_are_every_earlier_writer_of_what_the_test_read_nearest_first() -> None:
    seq = [
        TestAccess(0, "a", writes=frozenset({"reg"})),
        TestAccess(1, "b", writes=frozenset({"other"})),
        TestAccess(2, "c", writes=frozenset({"reg", "env:X"})),
        TestAccess(3, "v", reads=frozenset({"reg", "env:*"}), writes=frozenset({"reg"})),
        TestAccess(4, "d", writes=frozenset({"reg"})),
    ]
    assert writers_before(seq, "v") == {"c": ["env:X", "reg"], "a": ["reg"]}
    assert writers_before(seq, "a") == {}
    assert writers_before(seq, "missing") == {}


def test_a_victim_of_either_of_two_polluters_of_a_crowded_registry_is_found() -> None:
    """Every test registers a class (a crowded root: its readers are linked to the last
    writer only) and the victim fails after either of two of them. In the reversed run it
    fails; moving one polluter leaves the other, so refinement cannot show either."""
    fillers = [f"f{i:02d}" for i in range(CROWDED + 10)]
    order = ["v", *fillers[:15], "p1", "p2", *fillers[15:]]
    access = {t: ({"registry"}, {"registry"}) for t in order}
    ex = ProbedModel(order, [ODSpec("v", "victim", polluters=["p1", "p2"])], access)
    result = run_pradet(ex)
    assert {("v", "p1", "victim"), ("v", "p2", "victim")} <= manifest_pairs(result)
    assert {e.dependency.dependee for e in result.manifest} == {"p1", "p2"}
