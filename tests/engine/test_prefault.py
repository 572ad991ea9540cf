from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from orderdep.engine import prefault
from orderdep.engine.prefault import PAGE, Learner, to_ranges

linux_only = pytest.mark.skipif(not prefault.supported(), reason="needs /proc/self/pagemap")


def test_to_ranges_merges_runs_and_small_gaps() -> None:
    within = [(0, 1000 * PAGE)]
    assert to_ranges([5, 6, 7], within) == [(5 * PAGE, 8 * PAGE)]
    # a gap of up to GAP missing pages is filled in, a larger one is not
    gap = prefault.GAP
    assert to_ranges([1, 2 + gap], within) == [(1 * PAGE, (3 + gap) * PAGE)]
    assert to_ranges([1, 3 + gap], within) == [
        (PAGE, 2 * PAGE),
        ((3 + gap) * PAGE, (4 + gap) * PAGE),
    ]


def test_to_ranges_clips_to_mappings() -> None:
    within = [(10 * PAGE, 12 * PAGE), (20 * PAGE, 30 * PAGE)]
    pages = [5, 10, 11, 12, 13, 25]
    assert to_ranges(pages, within) == [(10 * PAGE, 12 * PAGE), (25 * PAGE, 26 * PAGE)]
    assert to_ranges([], within) == []
    assert to_ranges([1, 2], []) == []


def test_learner_keeps_pages_most_orders_write(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefault, "writable_private_ranges", lambda: [(0, 10_000 * PAGE)])
    learner = Learner()
    common = list(range(100, 110))
    learner.add([*common, 500])
    assert (500 * PAGE, 501 * PAGE) in learner.ranges  # one order: everything it wrote
    for extra in (600, 700, 800):
        learner.add([*common, extra])
    # four orders: only pages written by at least three of them
    assert learner.ranges == [(100 * PAGE, 110 * PAGE)]
    assert learner.learned == 4


def test_learner_learns_early_then_sometimes() -> None:
    learner = Learner()
    wanted = [n for n in range(200) if learner.wants(n)]
    assert wanted[:4] == [0, 1, 2, 3]
    assert 4 < len(wanted) < 20


def test_pages_file_round_trip(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(str(tmp_path), "pages")
    prefault.write_pages(path, [3, 1, 2**40])
    assert prefault.read_pages(path) == [3, 1, 2**40]
    assert prefault.read_pages(os.path.join(str(tmp_path), "missing")) == []


# The fork scenarios run in a fresh interpreter of their own: forking this (possibly
# multi-threaded) test process could deadlock the child.
PRELUDE = """
import ctypes, os, resource
from orderdep.engine import prefault
PAGE = prefault.PAGE

def address(buf):
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))

def in_child(body):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.write(w, str(body()).encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 65536).decode()
    os.waitpid(pid, 0)
    print(out)
"""


def _scenario(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@linux_only
def test_owned_pages_are_the_pages_written_after_fork() -> None:
    out = _scenario(
        """
        buf = bytearray(64 * PAGE)
        for i in range(0, len(buf), PAGE):
            buf[i] = 1  # populated in the parent, so shared after the fork
        at = address(buf)

        def child():
            before = set(prefault.owned_pages())
            for i in range(0, 16 * PAGE, PAGE):
                buf[i] = 2
            fresh = set(prefault.owned_pages()) - before
            first = at // PAGE + (1 if at % PAGE else 0)
            written = set(range(first, first + 15))
            return f"{len(written & fresh)} {len(fresh & set(range(first + 20, first + 60)))}"

        in_child(child)
        """
    )
    hit, untouched = map(int, out.split())
    assert hit == 15
    assert untouched == 0


@linux_only
def test_populate_copies_pages_ahead_without_changing_them() -> None:
    out = _scenario(
        """
        buf = bytearray(os.urandom(256 * PAGE))
        at = address(buf)
        snapshot = bytes(buf)

        def child():
            lo = (at + PAGE - 1) // PAGE * PAGE
            hi = (at + len(buf)) // PAGE * PAGE
            if not prefault.populate([(lo, hi)]):
                return "unsupported"
            same = bytes(buf) == snapshot
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            for i in range(lo - at, hi - at, PAGE):
                buf[i] = buf[i]
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
            return f"{same} {faults}"

        in_child(child)
        """
    )
    if out == "unsupported":
        pytest.skip("the kernel lacks MADV_POPULATE_WRITE")
    same, faults = out.split()
    assert same == "True"
    assert int(faults) < 50  # 250 pages written, almost none of them faulted


def test_populate_of_nothing_is_fine() -> None:
    assert prefault.populate([]) is True


def test_unsupported_platform_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert prefault.supported() is False


@linux_only
def test_populate_touches_only_writable_private_mappings() -> None:
    import ctypes
    import mmap

    shared = mmap.mmap(-1, 4 * PAGE)  # MAP_SHARED: pre-faulting it for writing is not ours to do
    address = ctypes.addressof(ctypes.c_char.from_buffer(shared))
    span = (address, address + 4 * PAGE)
    assert prefault.clip([span], prefault.writable_private_ranges()) == []
    assert prefault.populate([span, (0, PAGE)]) is True
    assert prefault.clip([(10, 20), (30, 50)], [(0, 15), (40, 100)]) == [(10, 15), (40, 50)]
