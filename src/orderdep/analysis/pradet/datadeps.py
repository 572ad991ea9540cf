"""Data dependencies between tests from one probed reference run (paper 001 §III-A).

A test ``t2`` *data-depends* on ``t1`` when ``t2`` reads a root whose last writer before
``t2`` in the reference order is ``t1`` (a read-after-write across tests), or, with
``all_writers``, any earlier writer of it. The result is
PRADET's test dependency graph: a ``networkx.DiGraph`` over test ids with an edge
``t2 -> t1`` (dependent -> dependee) carrying the ``roots`` it flows through. Every edge
points backwards in the reference order, so the graph is acyclic.

A root written by many tests (more than :data:`CROWDED`: a creation counter, an id
generator, a cache every test fills) links a reader to its last writer only, even with
``all_writers``: removing one of its many writers cannot change what the reader sees, so
testing each would cost a dependency per reader and writer (half a million on a
1,000-test suite) and find nothing the last one does not; the graph's ``crowded``
attribute names such roots with their number of writers.

Reads ending in ``*`` are wildcards (``env:*``, ``file:data/*``): they read every root
with that prefix. A test's reads are matched before its own writes are applied, so a test
that reads and then rewrites a root depends on the earlier writer.

**Values a fixture was built from.** A fixture of a wider scope is set up by the first
test of its scope that uses it, and the later users get that very value. Setting it up
is no write (``fixture:`` roots, :mod:`orderdep.analysis.state.fixtures`), but what the
fixture function read went into the value: a class-scoped ``Unique()`` numbered from a
class-level counter. So a later user also reads, through the fixture, what the test that
set it up read, as written before that test (alone, it would set the fixture up itself).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import networkx as nx

from orderdep.errors import ReportError

#: Writers of one root beyond which a reader is linked to the last one only.
CROWDED = 20


@dataclass(frozen=True)
class TestAccess:
    """What one test (at one position of the reference order) read and wrote."""

    __test__ = False

    index: int
    test: str
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()


def accesses(probe: Mapping[str, Any]) -> list[TestAccess]:
    """The per-test accesses in a state probe's result, in order of position."""
    tests = probe.get("tests")
    if not isinstance(tests, list):
        raise ReportError(
            f"probe result has no 'tests' list (keys: {sorted(probe)!r}); was the order run "
            "with ProbeSpec('orderdep.analysis.state.probe')?"
        )
    if probe.get("error"):
        raise ReportError(f"the state probe failed in the child process:\n{probe['error']}")
    out = []
    for item in tests:
        try:
            out.append(
                TestAccess(
                    index=int(item["index"]),
                    test=str(item["test"]),
                    reads=frozenset(item.get("reads", ())),
                    writes=frozenset(item.get("writes", ())),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"malformed probe entry {item!r}: {exc}") from None
    out.sort(key=lambda a: a.index)
    return out


def matching(read: str, written: Iterable[str]) -> list[str]:
    """The written roots that ``read`` reads (itself, or every prefix match of a wildcard)."""
    if read.endswith("*"):
        prefix = read[:-1]
        return [w for w in written if w.startswith(prefix)]
    return [read]


def data_dependencies(
    seq: Sequence[TestAccess], *, all_writers: bool = False, crowded: int = CROWDED
) -> nx.DiGraph:
    """PRADET's test dependency graph for accesses in reference order.

    Nodes are test ids (attribute ``index``: first position); edge ``t2 -> t1`` has
    ``roots``, the sorted roots ``t2`` read whose last writer before it was ``t1``.

    ``all_writers`` links a reader to *every* earlier writer of a root it read instead.
    A root is a whole module global (or file, or fixture value), so two tests adding
    different keys to one dict both write it, and the later write does not replace the
    earlier one the way a write to a Java field does; refinement keeps the other writers
    before the dependent while it tests one, so a later writer no longer hides an earlier
    one. The edges still point backwards in the reference order: the graph stays acyclic.
    A root with more than ``crowded`` writers before the reader links the last one only
    (``graph.graph["crowded"]``: root -> writers, see the module doc).
    """
    graph = nx.DiGraph()
    crowd: dict[str, int] = {}
    writers: dict[str, list[str]] = {}  # root -> its writers so far, the last one last
    fixtures = _FixtureSetters()
    for access in seq:
        test = access.test
        if test not in graph:
            graph.add_node(test, index=access.index)
        read_now = {
            root: list(writers.get(root, ()))
            for read in access.reads
            for root in (matching(read, writers) if read.endswith("*") else [read])
        }
        for earlier_of in [read_now, *fixtures.inherited(test, access.reads, read_now)]:
            for root, earlier in earlier_of.items():
                many = len(earlier) > crowded
                if many:
                    crowd[root] = len(earlier)
                for writer in earlier if all_writers and not many else earlier[-1:]:
                    if writer == test:
                        continue
                    if graph.has_edge(test, writer):
                        graph.edges[test, writer]["roots"].add(root)
                    else:
                        graph.add_edge(test, writer, roots={root})
        for root in access.writes:
            tests = writers.setdefault(root, [])
            if test in tests:  # a test that runs twice: its latest write counts
                tests.remove(test)
            tests.append(test)
    for _, _, data in graph.edges(data=True):
        data["roots"] = sorted(data["roots"])
    if crowd:
        final = {r: len(writers[r]) for r in crowd}
        graph.graph["crowded"] = dict(sorted(final.items(), key=lambda kv: (-kv[1], kv[0])))
    return graph


FIXTURE = "fixture:"
_SCOPES = ("package", "module", "class")


def _unit(scope: str, test: str) -> str:
    """What one instance of a fixture of ``scope`` spans, as a part of ``test``'s id."""
    base = test.split("[", 1)[0]
    path = base.split("::", 1)[0]
    if scope == "package":
        return posixpath.dirname(path)
    if scope == "module":
        return path
    return base.rsplit("::", 1)[0]  # class (a function outside a class: its module)


class _FixtureSetters:
    """Which test set up each ``fixture:`` root still cached, and what that test read then
    (root -> its writers before it). A fixture goes when a test of another unit of its
    scope runs (pytest tears it down); session fixtures stay."""

    def __init__(self) -> None:
        self.setter: dict[str, str] = {}  # fixture root -> the test that set it up
        self.read: dict[str, dict[str, list[str]]] = {}  # setter -> its reads' writers
        self.units: dict[str, str] = {}  # scope -> unit of the last test

    def inherited(
        self, test: str, reads: Iterable[str], read_now: dict[str, list[str]]
    ) -> list[dict[str, list[str]]]:
        """What ``test`` reads through fixtures an earlier test set up; records ``test``
        as the setter of the fixtures it is the first to use."""
        for scope in _SCOPES:
            unit = _unit(scope, test)
            if self.units.get(scope, unit) != unit:
                prefix = f"{FIXTURE}{scope}:"
                for root in [r for r in self.setter if r.startswith(prefix)]:
                    del self.setter[root]
            self.units[scope] = unit
        out: list[dict[str, list[str]]] = []
        for root in sorted(r for r in reads if r.startswith(FIXTURE)):
            setter: Optional[str] = self.setter.get(root)
            if setter is None:
                self.setter[root] = test
                self.read[test] = read_now
            elif setter != test:
                out.append(self.read.get(setter, {}))
        return out


def graph_from_probe(probe: Mapping[str, Any], *, all_writers: bool = False) -> nx.DiGraph:
    """:func:`data_dependencies` of a state probe's result."""
    return data_dependencies(accesses(probe), all_writers=all_writers)


def most_written(seq: Sequence[TestAccess], n: int = 10) -> list[tuple[str, list[str]]]:
    """Roots with the most writers, each with its writers in order (ties by name)."""
    writers: dict[str, list[str]] = {}
    for access in seq:
        for root in access.writes:
            writers.setdefault(root, []).append(access.test)
    ranked = sorted(writers.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return ranked[:n]


@dataclass
class Explanation:
    """What one test read from the tests before it, and what it wrote."""

    test: str
    index: int
    reads: dict[str, list[str]] = field(default_factory=dict)  # root -> earlier writers
    writes: list[str] = field(default_factory=list)
    unwritten_reads: list[str] = field(default_factory=list)  # read, never written before

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "index": self.index,
            "reads": self.reads,
            "writes": self.writes,
            "unwritten_reads": self.unwritten_reads,
        }


def explain(seq: Sequence[TestAccess], test: str) -> Explanation:
    """The roots ``test`` read with every earlier writer of each (in order), and its writes."""
    writers: dict[str, list[str]] = {}
    for access in seq:
        if access.test == test:
            out = Explanation(test=test, index=access.index, writes=sorted(access.writes))
            for read in sorted(access.reads):
                roots = matching(read, writers) if read.endswith("*") else [read]
                hits = [r for r in roots if writers.get(r)]
                for root in sorted(hits):
                    out.reads[root] = list(writers[root])
                if not hits:
                    out.unwritten_reads.append(read)
            return out
        for root in access.writes:
            writers.setdefault(root, []).append(access.test)
    raise KeyError(test)
