"""Probe code that collects no garbage of the tests.

A probe walks interpreter state between tests, and the objects it allocates can start
the cyclic garbage collector, which then frees what the tests left unreachable: a
subclass defined inside a test stays in its base's ``__subclasses__()`` until it is
collected, and a victim that sees it fails without the probe and passes with it. While
a probe runs, every object that existed before is frozen (``gc.freeze``), so a
collection started by the probe's allocations looks at the probe's own objects only;
afterwards they are handed back to the oldest generation (``gc.unfreeze``), where the
collector finds them when it would have without the probe.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def garbage_kept() -> Iterator[None]:
    """Run the block without collecting any object that existed before it."""
    if gc.get_freeze_count():  # frozen already (the fork server freezes after collection)
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


__all__ = ["garbage_kept"]
