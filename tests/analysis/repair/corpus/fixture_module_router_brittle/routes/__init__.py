class Router:
    def __init__(self):
        self.handlers = {}

    def add(self, path, handler):
        self.handlers[path] = handler

    def dispatch(self, path):
        return self.handlers[path]()

    def __len__(self):
        return len(self.handlers)
