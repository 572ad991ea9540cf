"""A tiny stock keeper."""


class Inventory:
    def __init__(self, items):
        self.items = list(items)

    def remove(self, item):
        self.items.remove(item)

    def count(self):
        return len(self.items)


class SessionCache(dict):
    """Who is logged in, by session id."""
