"""orderdep's own test suite.

``corpus/`` holds small test projects in the shapes of real-world suites; they are data
for the engine's fidelity tests (tests/engine/test_fidelity_corpus.py), which run them
in many orders. They are never collected as part of this suite.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

collect_ignore_glob = ["corpus/*"]


@pytest.fixture(scope="session", autouse=True)
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, as in a terminal, also when the suite was started
    in the background (``cmd &`` in a script starts it with SIGINT ignored, and the pytest
    processes the tests start would inherit that)."""
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
