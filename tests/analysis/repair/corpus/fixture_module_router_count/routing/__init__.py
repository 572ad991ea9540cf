class Route:
    def __init__(self, path, handler):
        self.path, self.handler = path, handler


class Router:
    def __init__(self):
        self._routes = set()

    def register(self, handler, path):
        self._routes.add(Route(path, handler))
        return self

    def __len__(self):
        return len(self._routes)
