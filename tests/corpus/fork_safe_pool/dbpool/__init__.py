"""A connection pool made at import, fork-safe like the pools of common database clients.

A process never uses connections it inherited from its parent: the pool remembers the
pid that made it and is replaced in a child process, and a fork hook drops inherited
connections at once.
"""

import os


class Pool:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.connections: list[str] = []

    def connect(self, name: str) -> str:
        self.connections.append(name)
        return f"{name}#{len(self.connections)}"


POOL = Pool()
_current = POOL
FORK_RESETS: list[str] = []


def get_pool() -> Pool:
    global _current
    if _current.pid != os.getpid():
        _current = Pool()
    return _current


def _drop_inherited_connections() -> None:
    POOL.connections.clear()
    FORK_RESETS.append("after fork")


os.register_at_fork(after_in_child=_drop_inherited_connections)
