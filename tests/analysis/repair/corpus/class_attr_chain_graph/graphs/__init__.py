"""A small graph whose vertices are objects (no literal writes one)."""


class Vertex:
    def __init__(self, name):
        self.name = name


class Graph:
    def __init__(self):
        self.vertices = {}
        self.edges = []

    def add_vertex(self, name):
        if name in self.vertices:
            raise ValueError(f"vertex {name} exists")
        self.vertices[name] = Vertex(name)
        return self.vertices[name]

    def add_edge(self, a, b):
        if a not in self.vertices or b not in self.vertices:
            raise KeyError(f"no vertex {a} or {b}")
        self.edges.append((self.vertices[a], self.vertices[b]))

    def num_vertices(self):
        return len(self.vertices)
