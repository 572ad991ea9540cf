"""Tests whose outcome differs between the collected runs: their dependees first.

A test that passes in one collected order and fails in the other depends on the order
(unless it fails at random, which the screening of :mod:`.confirm` catches). When it
reads a root that many tests write (a class-level id counter that every constructor
advances), it data-depends on all of them and each suffices: refinement moves one at a
time, sees no change and removes every edge, after testing the quadratic number of
edges among the writers themselves, which a budget seldom covers. So before refinement
each such test's dependees in the run whose outcome is to be explained are tried right
before it, alone, the nearest first, as :func:`~.confirm.alternatives` does after
refinement: a victim (passes alone) with the dependees of the run where it failed, a
brittle (fails alone) with those of the run where it passed; then every other test that
wrote, before it, a root it read (:func:`writers_before`: a crowded root links a reader to
its last writer only, and a victim that any of several polluters fail needs the others
tried too). What shows the relation is
evidence (``found_by="alternatives"``, re-run by :func:`~.confirm.verify`) and is not
refined again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Optional

import networkx as nx

from orderdep.analysis.pradet.collection import Collected
from orderdep.analysis.pradet.confirm import Checks, Order, pair_orders
from orderdep.analysis.pradet.datadeps import TestAccess, explain
from orderdep.analysis.pradet.evidence import Evidence, PradetResult
from orderdep.analysis.pradet.manifest import ManifestDependency

# (dependent, dependee, did the dependent fail in the collected run) -> found manifest
Verdicts = dict[tuple[str, str, bool], bool]
CHUNK = 8  # pairs run between two looks at the deadline


def differing(collected: Collected) -> list[str]:
    """Tests that failed in one collected run and passed in another, in reference order."""
    seen: dict[str, set[bool]] = {}
    for c in collected.collections:
        for test, outcome in zip(c.order, c.outcomes):
            seen.setdefault(test, set()).add(outcome.is_failure)
    first = collected.collections[0].order if collected.collections else []
    return [t for t in first if len(seen.get(t, ())) > 1]


def dependees_first(
    checks: Checks,
    result: PradetResult,
    verdicts: Verdicts,
    deadline: Optional[float] = None,
) -> int:
    """Try the dependees of every test in :func:`differing` right before it (see the
    module); record what shows the relation in ``result.evidence`` and in ``verdicts``
    (manifest: not refined again). Stops at ``deadline``; returns the pairs found."""
    tests = differing(result.collected)
    result.alternative_executions += checks.run((t,) for t in tests)
    graphs: dict[str, nx.DiGraph] = {}
    found = 0
    for test in tests:
        alone_failed = checks.fails((test,))
        if not (alone_failed or checks.passes((test,))):
            continue  # not the same outcome in every run alone: screening's business
        kind = "brittle" if alone_failed else "victim"
        for c in result.collected.collections:
            index = c.order.index(test) if test in c.order else -1
            if index < 0 or c.outcomes[index].is_failure == alone_failed:
                continue  # this run shows the outcome it has alone: nothing to explain
            graph = graphs.get(c.source)
            if graph is None:
                graph = graphs[c.source] = c.graph()
            if test not in graph:
                continue
            position = {t: i for i, t in enumerate(c.order)}
            dependees = sorted(graph.successors(test), key=lambda t: -position.get(t, -1))
            roots = {d: list(graph.edges[test, d].get("roots", ())) for d in dependees}
            for writer, read in writers_before(c.accesses, test).items():
                if writer not in roots:
                    dependees.append(writer)
                    roots[writer] = read
            failed = c.outcomes[index].is_failure
            for start in range(0, len(dependees), CHUNK):
                if deadline is not None and time.monotonic() >= deadline:
                    return found
                chunk = dependees[start : start + CHUNK]
                pairs = {d: pair_orders(test, d, kind) for d in chunk}
                for _ in chunk:
                    checks.tried(test)
                result.alternative_executions += checks.run(o for p in pairs.values() for o in p)
                for dependee, (failing, passing) in pairs.items():
                    if checks.shows(failing, passing):
                        found += 1
                        verdicts[(test, dependee, failed)] = True
                        result.evidence.append(
                            _evidence(
                                test, dependee, kind, failing, passing, roots[dependee], c.source
                            )
                        )
    return found


def writers_before(accesses: Sequence[TestAccess], test: str) -> dict[str, list[str]]:
    """Every test that wrote a root ``test`` read before it ran (its first run), the
    nearest first, with the roots it wrote that ``test`` read (from :func:`explain`). The
    graph links a reader of a crowded root (a registry, a counter) to its last writer
    only, and a victim any of several polluters fail is not explained by that one."""
    try:
        reads = explain(accesses, test).reads
    except KeyError:
        return {}
    latest: dict[str, int] = {}
    for access in accesses:
        if access.test == test:
            break
        latest[access.test] = access.index
    found: dict[str, set[str]] = {}
    for root, writers in reads.items():
        for w in writers:
            if w != test:
                found.setdefault(w, set()).add(root)
    return {w: sorted(found[w]) for w in sorted(found, key=lambda w: -latest[w])}


def _evidence(
    test: str,
    dependee: str,
    kind: str,
    failing: Order,
    passing: Order,
    roots: Sequence[str],
    source: str,
) -> Evidence:
    dependency = ManifestDependency(
        dependent=test,
        dependee=dependee,
        roots=list(roots),
        kind="brittle" if kind == "brittle" else "victim",
        failing_order=list(failing),
        passing_order=list(passing),
        source=source,
    )
    return Evidence(dependency, alone=True, confirmed=True, found_by="alternatives")


__all__ = ["dependees_first", "differing", "writers_before"]
