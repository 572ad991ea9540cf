from __future__ import annotations

from typing import Any

import networkx as nx
import pytest

from orderdep.analysis.pradet.datadeps import (
    accesses,
    data_dependencies,
    explain,
    graph_from_probe,
    most_written,
)
from orderdep.errors import ReportError


def probe(*rows: tuple[str, list[str], list[str]]) -> dict[str, Any]:
    """A state-probe result: one (test, reads, writes) row per position."""
    return {
        "tests": [
            {"index": i, "test": t, "reads": reads, "writes": writes}
            for i, (t, reads, writes) in enumerate(rows)
        ]
    }


def test_edges_go_to_the_last_writer_before_the_reader() -> None:
    graph = graph_from_probe(
        probe(
            ("t1", [], ["m.A", "m.B"]),
            ("t2", ["m.A"], []),
            ("t3", [], ["m.A"]),
            ("t4", ["m.A", "m.B", "m.C"], []),
            ("t5", ["m.A"], ["m.A"]),  # reads before its own write: depends on t3
            ("t6", ["m.A"], []),
        )
    )
    assert sorted(graph.edges(data="roots")) == [
        ("t2", "t1", ["m.A"]),
        ("t4", "t1", ["m.B"]),
        ("t4", "t3", ["m.A"]),
        ("t5", "t3", ["m.A"]),
        ("t6", "t5", ["m.A"]),
    ]
    assert nx.is_directed_acyclic_graph(graph)
    assert graph.nodes["t4"]["index"] == 3
    assert set(graph.nodes) == {"t1", "t2", "t3", "t4", "t5", "t6"}


def test_wildcard_reads_and_no_self_edges() -> None:
    graph = graph_from_probe(
        probe(
            ("a", [], ["env:X", "file:data/1", "file:other"]),
            ("b", [], ["env:Y"]),
            ("c", ["env:*", "file:data/*"], ["env:X"]),
            ("c2", ["env:X"], []),
            ("a", ["env:Y", "file:other"], ["file:other"]),  # a again: its own write
            ("d", ["file:other"], []),
        )
    )
    assert graph.edges["c", "a"]["roots"] == ["env:X", "file:data/1"]
    assert graph.edges["c", "b"]["roots"] == ["env:Y"]
    assert graph.edges["c2", "c"]["roots"] == ["env:X"]
    assert graph.edges["a", "b"]["roots"] == ["env:Y"]
    assert ("a", "a") not in graph.edges
    assert graph.edges["d", "a"]["roots"] == ["file:other"]


def test_malformed_or_failed_probe_results_are_report_errors() -> None:
    with pytest.raises(ReportError, match="no 'tests' list"):
        accesses({})
    with pytest.raises(ReportError, match="failed in the child"):
        accesses({"tests": [], "error": "Traceback ..."})
    with pytest.raises(ReportError, match="malformed probe entry"):
        accesses({"tests": [{"test": "x"}]})


def test_accesses_sorted_by_position() -> None:
    data = probe(("a", [], ["r"]), ("b", ["r"], []))
    data["tests"].reverse()
    seq = accesses(data)
    assert [a.test for a in seq] == ["a", "b"]
    assert list(data_dependencies(seq).edges) == [("b", "a")]


def test_most_written_and_explain() -> None:
    seq = accesses(
        probe(
            ("a", [], ["m.A", "env:E"]),
            ("b", [], ["m.A"]),
            ("c", [], ["m.B"]),
            ("d", ["m.A", "env:*", "m.Z"], ["m.B"]),
        )
    )
    assert most_written(seq, 2) == [("m.A", ["a", "b"]), ("m.B", ["c", "d"])]
    why = explain(seq, "d")
    assert why.index == 3
    assert why.reads == {"m.A": ["a", "b"], "env:E": ["a"]}
    assert why.unwritten_reads == ["m.Z"]
    assert why.writes == ["m.B"]
    assert why.to_json()["reads"]["m.A"] == ["a", "b"]
    with pytest.raises(KeyError):
        explain(seq, "nope")


def test_all_writers_links_every_earlier_writer() -> None:
    seq = accesses(
        probe(
            ("s1", [], ["d"]),
            ("s2", [], ["d"]),
            ("s1", [], ["d"]),  # s1 again: one writer, now the last
            ("b", ["d", "e"], ["e"]),
            ("c", ["e", "d"], []),
        )
    )
    last = data_dependencies(seq)
    assert sorted(last.edges) == [("b", "s1"), ("c", "b"), ("c", "s1")]
    every = data_dependencies(seq, all_writers=True)
    assert sorted(every.edges(data="roots")) == [
        ("b", "s1", ["d"]),
        ("b", "s2", ["d"]),
        ("c", "b", ["e"]),
        ("c", "s1", ["d"]),
        ("c", "s2", ["d"]),
    ]
    assert nx.is_directed_acyclic_graph(every)


def test_a_root_written_by_many_tests_links_its_last_writer_only() -> None:
    writers = [(f"w{i}", [], ["counter"]) for i in range(5)]
    seq = accesses(probe(("s", [], ["d"]), *writers, ("r", ["counter", "d"], [])))
    every = data_dependencies(seq, all_writers=True, crowded=3)
    assert sorted(every.edges) == [("r", "s"), ("r", "w4")]
    assert every.graph["crowded"] == {"counter": 5}
    below = data_dependencies(seq, all_writers=True, crowded=5)
    assert len(below.edges) == 6 and "crowded" not in below.graph


UNIQUE = "fixture:class:tests/test_b.py::TestU::unique"


def test_a_wider_fixture_passes_on_what_the_test_that_set_it_up_read() -> None:
    graph = graph_from_probe(
        probe(
            ("tests/test_a.py::test_poll", [], ["pkg.Unique.count"]),
            # sets the class fixture up: its value numbered from the counter
            (
                "tests/test_b.py::TestU::test_inc",
                [UNIQUE, "pkg.Unique.count"],
                ["pkg.Unique.count"],
            ),
            ("tests/test_b.py::TestU::test_init", [UNIQUE], []),
        ),
        all_writers=True,
    )
    assert sorted(graph.edges("tests/test_b.py::TestU::test_init", data="roots")) == [
        ("tests/test_b.py::TestU::test_init", "tests/test_a.py::test_poll", ["pkg.Unique.count"])
    ]


def test_a_fixture_of_another_unit_of_its_scope_is_set_up_afresh() -> None:
    shared = "fixture:class:tests::shared"
    graph = graph_from_probe(
        probe(
            ("tests/test_a.py::test_poll", [], ["pkg.N"]),
            ("tests/test_b.py::TestU::test_one", [shared, "pkg.N"], []),
            ("tests/test_b.py::TestU::test_two", [shared], []),
            ("tests/test_b.py::TestV::test_three", [shared], []),
            ("tests/test_b.py::TestV::test_four", [shared], []),
        )
    )
    assert sorted(graph.edges) == [
        ("tests/test_b.py::TestU::test_one", "tests/test_a.py::test_poll"),
        ("tests/test_b.py::TestU::test_two", "tests/test_a.py::test_poll"),
    ]
