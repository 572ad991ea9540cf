"""A probe's own allocations collect none of the garbage the tests left."""

from __future__ import annotations

import gc
import weakref
from typing import TYPE_CHECKING

import pytest

from orderdep.core.outcomes import Outcome
from orderdep.engine.gcguard import garbage_kept
from orderdep.engine.probe import ProbeSpec

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter


class Node:
    pass


def test_a_collection_inside_the_block_keeps_the_garbage_made_before() -> None:
    node = Node()
    node.me = node  # type: ignore[attr-defined]  # a cycle: only the collector frees it
    gone = weakref.ref(node)
    del node
    with garbage_kept():
        gc.collect()
        assert gone() is not None
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


DEAD_SUBCLASS = {
    "registry.py": "class Base:\n    pass\n",
    "collecting_probe.py": (
        "import gc\n\n"
        "class Probe:\n"
        "    def before_test(self, index, test_id):\n"
        "        gc.collect()  # what a walk allocating enough objects may start\n\n"
        "    def after_test(self, index, test_id):\n"
        "        pass\n\n"
        "    def result(self):\n"
        "        return {}\n\n"
        "def make_probe(options, rootdir):\n"
        "    return Probe()\n"
    ),
    "tests/test_registry.py": (
        "import gc\n\nimport registry\n\n"
        "def test_defines_a_subclass():\n"
        "    class Temp(registry.Base):\n"
        "        pass\n"
        "    gc.collect()  # Temp survives into the oldest generation\n\n"
        "def test_no_subclass():\n"
        "    assert registry.Base.__subclasses__() == []\n"
    ),
}
ORDER = [
    "tests/test_registry.py::test_defines_a_subclass",
    "tests/test_registry.py::test_no_subclass",
]


@pytest.mark.parametrize("runner", ["fork", "subprocess"])
def test_a_victim_of_uncollected_garbage_fails_with_a_probe_as_without(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    engine = make_engine(make_project(DEAD_SUBCLASS), runner=runner)
    plain = engine.run(ORDER)
    probed = engine.run(ORDER, probe=ProbeSpec("collecting_probe"))
    assert probed.probe is not None and not probed.probe.get("error")
    for result in (plain, probed):
        assert [r.outcome for r in result.results] == [Outcome.PASSED, Outcome.FAILED]
