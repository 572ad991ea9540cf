class Graph:
    def __init__(self):
        self.edges = {}

    def add_edge(self, a, b):
        self.edges.setdefault(a, set()).add(b)
        self.edges.setdefault(b, set())

    def nodes(self):
        return sorted(self.edges)


def diamond():
    g = Graph()
    for a, b in [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]:
        g.add_edge(a, b)
    return g
