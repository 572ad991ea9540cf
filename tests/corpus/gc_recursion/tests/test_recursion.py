import contextlib
import sys

import pytest

from graphs.walk import depth_of, frames_until_recursion_error, nest

# How many frames a test has left under a recursion limit of 120 when it runs at
# pytest's own stack depth (CPython 3.11, pytest 9).
HEADROOM = 79


@contextlib.contextmanager
def recursion_limit(limit):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_deep_structure():
    assert depth_of(nest(400)) == 400


def test_low_recursion_limit():
    sys.setrecursionlimit(150)  # never put back
    assert depth_of(nest(100)) == 100


def test_headroom_under_a_low_limit():
    with recursion_limit(120):
        frames = frames_until_recursion_error()
    assert frames == HEADROOM, f"{frames} frames free under a limit of 120"


def test_deepest_walk_that_fits():
    with recursion_limit(120):
        assert depth_of(nest(HEADROOM + 1)) == HEADROOM + 1


def test_one_level_deeper_does_not_fit():
    with recursion_limit(120), pytest.raises(RecursionError):
        depth_of(nest(HEADROOM + 2))
