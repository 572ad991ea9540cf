"""Copy-on-write pre-faulting for forked children (Linux; a no-op elsewhere).

A forked child shares every memory page with the fork server until it writes to one;
the first write to each page traps into the kernel, which copies the page. Running a
test touches a thousand or more pages (reference counts, interpreter caches), and those
faults cost about half of a short order's time. The pages a child writes are much the
same from order to order, so the server *learns* them from a few children (which pages
they ended up owning, read from ``/proc/self/pagemap``) and every later child copies
them in advance with ``madvise(MADV_POPULATE_WRITE)`` while it waits for its order,
off the critical path. Semantics are unchanged: a pre-faulted page holds the same bytes.

Everything here degrades to doing nothing when ``/proc`` or the ``madvise`` flag
(Linux 5.14+) is missing.
"""

from __future__ import annotations

import array
import ctypes
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MADV_POPULATE_WRITE = 23
PRESENT = 1 << 63
EXCLUSIVE = 1 << 56
# Gaps up to this many pages between learned pages are filled in, to need fewer calls.
GAP = 2
# Never pre-fault more than this many pages (64 MiB of 4 KiB pages) per child.
LIMIT = 16384

if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    Range = tuple[int, int]  # [start, end) addresses


def supported() -> bool:
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/pagemap")


def writable_private_ranges() -> list[Range]:
    """Address ranges of this process's writable private mappings (heap, data, anon)."""
    out: list[Range] = []
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            for line in maps:
                parts = line.split()
                perms = parts[1]
                if perms[1] != "w" or perms[3] != "p":
                    continue
                name = parts[5] if len(parts) > 5 else ""
                if name.startswith("[") and name not in ("[heap]", "[stack]"):
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                out.append((lo, hi))
    except OSError:
        return []
    return out


def owned_pages() -> list[int]:
    """Page numbers this process owns alone (copied or allocated since the fork)."""
    pages: list[int] = []
    try:
        fd = os.open("/proc/self/pagemap", os.O_RDONLY)
    except OSError:
        return pages
    try:
        for lo, hi in writable_private_ranges():
            first = lo // PAGE
            data = os.pread(fd, (hi - lo) // PAGE * 8, first * 8)
            entries = array.array("Q")
            entries.frombytes(data[: len(data) // 8 * 8])
            mask = PRESENT | EXCLUSIVE
            pages.extend(first + i for i, v in enumerate(entries) if v & mask == mask)
    except OSError:
        pass
    finally:
        os.close(fd)
    return pages


def to_ranges(pages: Iterable[int], within: Sequence[Range]) -> list[Range]:
    """Merge page numbers into address ranges, clipped to the mappings ``within``."""
    merged: list[list[int]] = []
    for page in sorted(set(pages)):
        if merged and page - merged[-1][1] <= GAP:
            merged[-1][1] = page + 1
        else:
            merged.append([page, page + 1])
    return clip([(lo * PAGE, hi * PAGE) for lo, hi in merged], within)


class Learner:
    """The server's record of the pages its children wrote, as ranges to pre-fault.

    Only pages that at least 3/4 of the learning children wrote are pre-faulted:
    those are pytest's and the interpreter's own, written by every order; pages only
    some tests write would cost every child a copy it mostly does not need.
    """

    def __init__(self) -> None:
        self.counts: Counter[int] = Counter()
        self.ranges: list[Range] = []
        self.learned = 0

    def add(self, pages: Iterable[int]) -> None:
        self.learned += 1
        for page in pages:
            if page in self.counts or len(self.counts) < LIMIT:
                self.counts[page] += 1
        floor = max(1, (3 * self.learned + 3) // 4)
        common = [page for page, n in self.counts.items() if n >= floor]
        self.ranges = to_ranges(common, writable_private_ranges())

    def wants(self, n: int) -> bool:
        """Learn from the first orders, then from one order in 32 (tests differ)."""
        return n < 4 or n % 32 == 0


def write_pages(path: str, pages: Sequence[int]) -> None:
    with open(path, "wb") as fh:
        array.array("Q", pages).tofile(fh)


def read_pages(path: str) -> list[int]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    entries = array.array("Q")
    entries.frombytes(data[: len(data) // 8 * 8])
    return list(entries)


def clip(ranges: Sequence[Range], within: Sequence[Range]) -> list[Range]:
    """The parts of ``ranges`` (sorted, disjoint) that lie inside ``within``."""
    out: list[Range] = []
    spans = sorted(within)
    j = 0
    for lo, hi in ranges:
        while j < len(spans) and spans[j][1] <= lo:
            j += 1
        k = j
        while k < len(spans) and spans[k][0] < hi:
            a, b = max(lo, spans[k][0]), min(hi, spans[k][1])
            if a < b:
                out.append((a, b))
            k += 1
    return out


_madvise: Optional[Any] = None


def populate(ranges: Sequence[Range]) -> bool:
    """Pre-fault ``ranges`` for writing; False when the kernel cannot (nothing done).

    Only the parts inside this process's writable private mappings are touched, so a
    range whose mapping went away (or became a shared one) is skipped, never written.
    """
    global _madvise
    ranges = clip(ranges, writable_private_ranges())
    if not ranges:
        return True
    if _madvise is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fn = libc.madvise
        except (OSError, AttributeError):
            return False
        fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        fn.restype = ctypes.c_int
        _madvise = fn
    for n, (lo, hi) in enumerate(ranges):
        failed = _madvise(lo, hi - lo, MADV_POPULATE_WRITE) != 0
        if failed and n == 0 and ctypes.get_errno() == 22:  # EINVAL: the kernel lacks it
            return False
    return True
