import weakref


class Node:
    def __init__(self, name: str) -> None:
        self.name = name
        self.peer: Node | None = None


def _make_pair() -> Node:
    left, right = Node("left"), Node("right")
    left.peer, right.peer = right, left  # a reference cycle
    return left


ROOT = _make_pair()
ROOT_REF = weakref.ref(ROOT)
RELEASED: list[str] = []
weakref.finalize(ROOT, RELEASED.append, "root")
