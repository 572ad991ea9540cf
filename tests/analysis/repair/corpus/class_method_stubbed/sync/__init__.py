"""Syncs tasks between two backends."""


class Source:
    """Reads tasks from a backend."""

    def fetch(self):
        return ["write report", "review"]

    def count(self):
        return len(self.fetch())


class Target:
    """Writes tasks to a backend; ``make_fn`` is wired in by ``wire``."""

    def push(self, tasks):
        return [self.make_fn(t) for t in tasks]


def wire(target_class):
    """Give ``target_class`` the function that turns a task into a record."""

    def make_fn(self, task):
        return {"title": task}

    target_class.make_fn = make_fn
