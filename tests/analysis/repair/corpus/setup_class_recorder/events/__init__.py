"""A tiny event bus: handlers are called with each event published."""


class Bus:
    def __init__(self):
        self.handlers = []

    def subscribe(self, handler):
        self.handlers.append(handler)

    def publish(self, event):
        for handler in self.handlers:
            handler(event)
