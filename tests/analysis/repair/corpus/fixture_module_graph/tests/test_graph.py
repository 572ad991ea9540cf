import pytest

import graphs


@pytest.fixture(scope="module")
def graph():
    return graphs.diamond()


def test_add_edge(graph):
    graph.add_edge("d", "e")
    assert "e" in graph.nodes()


def test_nodes(graph):
    assert graph.nodes() == ["a", "b", "c", "d"]
