"""Sessions that hold callbacks to themselves (a reference cycle), one made at import."""

import weakref


class Session:
    def __init__(self) -> None:
        self.on_close = [self.close]  # a bound method: the session refers to itself

    def close(self) -> None:
        self.on_close.clear()


DEFAULT = Session()
DEFAULT_REF = weakref.ref(DEFAULT)
RELEASED: list[str] = []
weakref.finalize(DEFAULT, RELEASED.append, "default")
