from graphs import Graph


class TestGraph:
    # one graph for the whole class: each test builds on the ones before it
    graph = Graph()

    def test_first_vertex(self):
        self.graph.add_vertex("a")
        assert self.graph.num_vertices() == 1
        assert self.graph.edges == []

    def test_second_vertex(self):
        self.graph.add_vertex("b")
        assert "b" in self.graph.vertices

    def test_edge(self):
        self.graph.add_edge("a", "b")
        assert len(self.graph.edges) == 1

    def test_loop(self):
        self.graph.add_vertex("c")
        self.graph.add_edge("c", "c")
        assert self.graph.edges[-1][0].name == "c"
