"""Test parallelisation: P1 and P2 of paper 002 (Table 3, §2.1.3), and dependency groups.

=====  ============================================================================
label  algorithm
=====  ============================================================================
P1     by test id: the i-th test of the original order goes to machine ``i mod k``
P2     by execution time: each test goes to the machine expected to finish first,
       given the tests already scheduled there
=====  ============================================================================

P2 considers the tests longest first (ties in original order): the paper ranks tests by
time and breaks ties by original position (§2.3), and counts P2 among the algorithms
that *reorder* tests (§2.4.3), which taking tests in original order would not. This is
the classic LPT rule. Machines tie by index.

Both are dependent-test-unaware; :func:`orderdep.core.enhance.enhance_parallel` adds to
each machine the dependees its tests need, which may run a dependee on several machines
(002 §5.1 suggests scheduling with the dependencies in mind instead). That is what
:func:`parallelize_groups` does, beyond the paper: tests connected by any dependency
(:func:`dependency_groups`, the weakly connected components of the dependency graph
including the positive dependees they need) travel as one unit, units are balanced by
LPT, and each machine runs its tests in the enhanced order. No dependee runs twice, at
the price of never splitting a large group.

Durations are seconds from a prior run. A test without one is assumed to take
``default_duration``, by default the mean of the known durations (0 if none is known).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from orderdep.core.depsfile import Dependency
from orderdep.core.enhance import enhance_planned, plan
from orderdep.core.prioritization import check_unique
from orderdep.errors import UsageError


@dataclass(frozen=True)
class ParallelizationAlgorithm:
    """One row of Table 3."""

    label: str
    description: str


ALGORITHMS: dict[str, ParallelizationAlgorithm] = {
    "P1": ParallelizationAlgorithm("P1", "Parallelize on test id"),
    "P2": ParallelizationAlgorithm("P2", "Parallelize on test execution time"),
}


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"the number of machines must be a positive integer, got {k!r}")


def _durations(
    durations: Mapping[str, float], default_duration: float | None
) -> tuple[Mapping[str, float], float]:
    for test, seconds in durations.items():
        if not isinstance(seconds, (int, float)) or math.isnan(seconds) or seconds < 0:
            raise UsageError(
                f"duration of {test!r} must be a non-negative number of seconds, got {seconds!r}"
            )
    if default_duration is None:
        default_duration = sum(durations.values()) / len(durations) if durations else 0.0
    return durations, float(default_duration)


def by_test_id(tests: Sequence[str], k: int) -> list[list[str]]:
    """P1: the i-th test (0-based, original order) runs on machine ``i mod k``."""
    _check_k(k)
    check_unique(tests)
    return [list(tests[m::k]) for m in range(k)]


def by_duration(
    tests: Sequence[str],
    durations: Mapping[str, float],
    k: int,
    *,
    default_duration: float | None = None,
) -> list[list[str]]:
    """P2: longest test first, each onto the machine expected to finish earliest."""
    _check_k(k)
    check_unique(tests)
    known, default = _durations(durations, default_duration)
    position = {t: i for i, t in enumerate(tests)}
    ranked = sorted(tests, key=lambda t: (-known.get(t, default), position[t]))
    machines: list[list[str]] = [[] for _ in range(k)]
    loads = [(0.0, m) for m in range(k)]  # heap of (expected finish, machine index)
    for test in ranked:
        load, m = heapq.heappop(loads)
        machines[m].append(test)
        heapq.heappush(loads, (load + known.get(test, default), m))
    return machines


def run_algorithm(
    label: str,
    tests: Sequence[str],
    k: int,
    durations: Mapping[str, float] | None = None,
) -> list[list[str]]:
    """Run Table 3's algorithm ``label`` ("P1" or "P2", case-insensitive)."""
    key = label.upper()
    if key == "P1":
        return by_test_id(tests, k)
    if key == "P2":
        if durations is None:
            raise UsageError(
                "P2 schedules by execution time but no durations were given; pass "
                "durations={test id: seconds} from a prior run"
            )
        return by_duration(tests, durations, k)
    raise UsageError(
        f"unknown parallelisation algorithm {label!r}; choose one of {sorted(ALGORITHMS)!r}"
    )


def makespan(
    machines: Sequence[Sequence[str]],
    durations: Mapping[str, float],
    *,
    default_duration: float | None = None,
) -> float:
    """Expected time until the last machine finishes (002 §4.4's "longest running subsuite")."""
    known, default = _durations(durations, default_duration)
    return max((sum(known.get(t, default) for t in m) for m in machines), default=0.0)


def dependency_groups(
    tests: Sequence[str],
    deps: Sequence[Dependency],
    *,
    all_tests: Sequence[str] | None = None,
) -> list[list[str]]:
    """Tests that must share a machine: components of the dependency graph.

    The graph has ``tests`` plus the transitive positive dependees they need (taken from
    ``all_tests``, chosen as :func:`orderdep.core.enhance.plan` chooses alternatives), an
    edge for each positive requirement and one between a victim and each member of a
    polluter group that is wholly present. Each group lists its tests in the enhanced
    order of ``tests``; groups come in order of their first test there. A test no
    dependency touches is a group of one.
    """
    return _enhanced_and_groups(tests, deps, all_tests)[1]


def _enhanced_and_groups(
    tests: Sequence[str], deps: Sequence[Dependency], all_tests: Sequence[str] | None
) -> tuple[list[str], list[list[str]]]:
    p = plan(tests, deps, all_tests)
    enhanced = enhance_planned(p)
    graph = nx.Graph()
    graph.add_nodes_from(enhanced)
    for test, needs in p.needs.items():
        graph.add_edges_from((test, b) for b in needs)
    for member, victims in p.victims.items():
        graph.add_edges_from((member, victim) for victim, _ in victims)
    position = {t: i for i, t in enumerate(enhanced)}
    groups = [sorted(c, key=position.__getitem__) for c in nx.connected_components(graph)]
    return enhanced, sorted(groups, key=lambda g: position[g[0]])


def parallelize_groups(
    tests: Sequence[str],
    deps: Sequence[Dependency],
    durations: Mapping[str, float],
    k: int,
    *,
    all_tests: Sequence[str] | None = None,
    default_duration: float | None = None,
) -> list[list[str]]:
    """Dependency-aware parallelisation: whole :func:`dependency_groups` per machine.

    Groups are assigned longest (total duration) first, each to the machine expected to
    finish earliest (ties: earlier group, lower machine index). Every machine runs its
    tests in the enhanced order of ``tests``, so every dependency holds on every machine
    and no test runs on two machines.
    """
    _check_k(k)
    known, default = _durations(durations, default_duration)
    enhanced, groups = _enhanced_and_groups(tests, deps, all_tests)
    weights = [sum(known.get(t, default) for t in g) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: (-weights[i], i))
    loads = [(0.0, m) for m in range(k)]
    machine_of: dict[str, int] = {}
    for i in order:
        load, m = heapq.heappop(loads)
        machine_of.update(dict.fromkeys(groups[i], m))
        heapq.heappush(loads, (load + weights[i], m))
    machines: list[list[str]] = [[] for _ in range(k)]
    for t in enhanced:
        machines[machine_of[t]].append(t)
    return machines
