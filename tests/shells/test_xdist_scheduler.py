"""The dependency-group xdist scheduler, on node-id strings with mock workers."""

from __future__ import annotations

import pytest

from orderdep.core.depsfile import Dependency
from orderdep.shells.xdist_scheduler import (
    DependencyGroupScheduling,
    SchedulerHooks,
    base_scope,
    plain_id,
    unit_scopes,
)

pytest_plugins = ["pytester"]

COLLECTION = [
    "a.py::test_setter",
    "a.py::test_victim",
    "a.py::test_a1",
    "b.py::test_brittle",
    "b.py::TestK::test_b1",
    "b.py::TestK::test_b2",
    "c.py::test_polluter",
    "c.py::test_c1",
    "c.py::test_c2",
    "c.py::test_c3",
]
DEPS = [
    Dependency("b.py::test_brittle", "positive", "a.py::test_setter"),
    Dependency("a.py::test_victim", "negative", "c.py::test_polluter"),
]


class MockGateway:
    _count = 0

    def __init__(self) -> None:
        MockGateway._count += 1
        self.id = f"gw{MockGateway._count}"


class MockNode:
    """A worker as the scheduler sees it: it receives indices and may be shut down."""

    def __init__(self) -> None:
        self.gateway = MockGateway()
        self.sent: list[int] = []
        self.done = 0
        self._shutdown = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def send_runtest_all(self) -> None:  # pragma: no cover - not used by load schedulers
        raise AssertionError("unexpected send_runtest_all")

    def shutdown(self) -> None:
        self._shutdown = True

    @property
    def shutting_down(self) -> bool:
        return self._shutdown


def test_base_scope_follows_xdist_modes() -> None:
    test = "pkg/b.py::TestK::test_b1[x@y]"
    assert base_scope(test, "load") == test
    assert base_scope(test, "loadscope") == "pkg/b.py::TestK"
    assert base_scope(test, "loadfile") == "pkg/b.py"
    assert base_scope("b.py::test_x@grp", "loadgroup") == "grp"
    assert base_scope(test, "loadgroup") == test  # '@' inside the parameters


def test_unit_scopes_put_each_group_in_one_unit() -> None:
    scopes = unit_scopes(COLLECTION, DEPS, "load")
    assert scopes["a.py::test_setter"] == scopes["b.py::test_brittle"]
    assert scopes["a.py::test_victim"] == scopes["c.py::test_polluter"]
    assert scopes["a.py::test_setter"] != scopes["a.py::test_victim"]
    assert scopes["c.py::test_c1"] == "c.py::test_c1"
    assert len(set(scopes.values())) == len(COLLECTION) - 2


def test_unit_scopes_merge_groups_with_the_modes_scopes() -> None:
    scopes = unit_scopes(COLLECTION, DEPS, "loadfile")
    # victim (a.py) + polluter (c.py), setter (a.py) + brittle (b.py): one unit of a, b, c.
    assert len(set(scopes.values())) == 1
    scopes = unit_scopes(COLLECTION, DEPS, "loadscope")
    assert scopes["b.py::TestK::test_b1"] == scopes["b.py::TestK::test_b2"] == "b.py::TestK"
    assert scopes["b.py::test_brittle"] == scopes["c.py::test_c3"]  # b.py and c.py via a.py


def _run(pytester: pytest.Pytester, mode: str, n_nodes: int) -> list[list[str]]:
    """Schedule COLLECTION on mock workers; each finishes tests in the order received."""
    config = pytester.parseconfig(f"--tx={n_nodes}*popen", f"--dist={mode}")
    sched = DependencyGroupScheduling(config, None, DEPS, mode)
    nodes = [MockNode() for _ in range(n_nodes)]
    for node in nodes:
        sched.add_node(node)
    for node in nodes:
        sched.add_node_collection(node, COLLECTION)
    sched.schedule()
    ran: list[list[str]] = [[] for _ in nodes]
    for _ in range(1000):
        progressed = False
        for i, node in enumerate(nodes):
            if node.done < len(node.sent) and node in sched.assigned_work:
                index = node.sent[node.done]
                node.done += 1
                ran[i].append(COLLECTION[index])
                sched.mark_test_complete(node, index)
                progressed = True
        if not progressed:
            break
    assert sched.tests_finished
    return ran


@pytest.mark.parametrize("mode", ["load", "loadscope", "loadfile", "worksteal"])
def test_groups_run_whole_on_one_worker_in_collection_order(
    pytester: pytest.Pytester, mode: str
) -> None:
    ran = _run(pytester, mode, 2)
    every = [t for r in ran for t in r]
    assert sorted(every) == sorted(COLLECTION)  # each test exactly once
    for before, after in [
        ("a.py::test_setter", "b.py::test_brittle"),
        ("a.py::test_victim", "c.py::test_polluter"),
    ]:
        (worker,) = [r for r in ran if after in r]
        assert before in worker
        assert worker.index(before) < worker.index(after)


def test_load_mode_still_spreads_the_other_tests(pytester: pytest.Pytester) -> None:
    ran = _run(pytester, "load", 2)
    assert all(r for r in ran)


def test_hook_declines_modes_it_does_not_replace(pytester: pytest.Pytester) -> None:
    hooks = SchedulerHooks(DEPS)
    each = pytester.parseconfig("--tx=2*popen", "--dist=each")
    assert hooks.pytest_xdist_make_scheduler(each, None) is None
    load = pytester.parseconfig("--tx=2*popen", "--dist=load")
    assert isinstance(hooks.pytest_xdist_make_scheduler(load, None), DependencyGroupScheduling)


def test_loadgroup_suffixes_are_matched_against_the_dependencies() -> None:
    # xdist's loadgroup may report ids as "id@group"; deps files name them without it.
    assert plain_id("b.py::TestK::test_b1@grp", "loadgroup") == "b.py::TestK::test_b1"
    assert plain_id("b.py::test_x[a@b]", "loadgroup") == "b.py::test_x[a@b]"
    assert plain_id("d@v/b.py::test_x", "loadgroup") == "d@v/b.py::test_x"
    assert plain_id("b.py::test_x@grp", "load") == "b.py::test_x@grp"
    collection = [
        "a.py::test_setter",
        "a.py::test_a1@slow",
        "b.py::test_brittle@db",
        "b.py::test_b2@db",
        "c.py::test_c1",
    ]
    scopes = unit_scopes(collection, DEPS, "loadgroup")
    # The setter joins the brittle, and with it the brittle's xdist group.
    assert scopes["a.py::test_setter"] == scopes["b.py::test_brittle@db"]
    assert scopes["b.py::test_b2@db"] == scopes["b.py::test_brittle@db"]
    assert scopes["a.py::test_a1@slow"] == "slow"
    assert scopes["c.py::test_c1"] == "c.py::test_c1"
