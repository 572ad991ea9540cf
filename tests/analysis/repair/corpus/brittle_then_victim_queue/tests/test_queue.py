"""One queue for the module, as a mock of a server would be: connecting is one test's
job, and a test filling it leaves its items behind."""


class Queue:
    def __init__(self) -> None:
        self.connected = False
        self._items: list[int] = []

    def connect(self) -> None:
        self.connected = True

    def _check(self) -> None:
        if not self.connected:
            raise RuntimeError("not connected")

    def put(self, item: int) -> None:
        self._check()
        self._items.append(item)

    def get(self) -> int:
        self._check()
        return self._items.pop(0)

    def qsize(self) -> int:
        self._check()
        return len(self._items)


queue = Queue()


def test_connect():
    queue.connect()
    assert queue.connected


def test_put_get():
    assert queue.qsize() == 0
    queue.put(1)
    assert queue.get() == 1


def test_fill():
    queue.connect()
    queue.put(1)
    queue.put(2)
    assert queue.qsize() >= 2
