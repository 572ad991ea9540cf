"""Coverage-based test selection: algorithms S1-S6 of paper 002 (Table 2, §2.1.2).

A test is selected when it covers a changed element of the *old* version of the code
(the version its coverage was recorded on): a modified or deleted statement, or a
function containing one. The selected tests are then ordered:

===== =========== ==========================================================
label granularity ordered by
===== =========== ==========================================================
S1    statement   test id (the original order: no reordering)
S2    statement   total statement coverage of each test
S3    statement   additional statement coverage
S4    function    test id
S5    function    total function coverage
S6    function    additional function coverage
===== =========== ==========================================================

"Total"/"additional" are prioritisation (:mod:`orderdep.core.prioritization`) applied to
the selected tests with their whole coverage: the paper calls these "a combination of
test selection followed by test prioritization". Ties follow the original order.

Following the paper's handling of versions (§4.1): tests that no longer exist are skipped
(pass only the current tests) and new tests, having no old coverage, are never selected.

Two pure helpers turn a change into changed elements: :func:`changed_lines` reads the
text of ``git diff -U0 BASE`` and returns the changed lines of the old version per file;
:func:`changed_functions` maps those lines to the functions that contain them, given the
old version's function line ranges (:func:`function_coverage` does the same for
per-test statement coverage, so both sides of the comparison agree).

Selected orders are *unenhanced*: :func:`orderdep.core.enhance.enhance_selection` adds
the positive dependees the selected tests need.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from orderdep.core.prioritization import Granularity, check_unique, prioritize
from orderdep.errors import UsageError

if TYPE_CHECKING:
    from orderdep.core.prioritization import CoverageMap

SelectionOrdering = Literal["id", "total", "additional"]

#: Qualname used for lines outside any function (module-level code).
MODULE_SCOPE = "<module>"

#: file -> list of (qualname, first line, last line), both inclusive, of the old version.
if TYPE_CHECKING:  # builtin generics are not subscriptable at run time on 3.8
    FunctionRanges = Mapping[str, Sequence[tuple[str, int, int]]]


@dataclass(frozen=True)
class SelectionAlgorithm:
    """One row of Table 2: selection granularity and the ordering of the selected tests."""

    label: str
    granularity: Granularity
    ordering: SelectionOrdering
    description: str


ALGORITHMS: dict[str, SelectionAlgorithm] = {
    a.label: a
    for a in (
        SelectionAlgorithm("S1", "statement", "id", "Statement selection, test id order"),
        SelectionAlgorithm("S2", "statement", "total", "Statement selection, total coverage"),
        SelectionAlgorithm(
            "S3", "statement", "additional", "Statement selection, additional coverage"
        ),
        SelectionAlgorithm("S4", "function", "id", "Function selection, test id order"),
        SelectionAlgorithm("S5", "function", "total", "Function selection, total coverage"),
        SelectionAlgorithm(
            "S6", "function", "additional", "Function selection, additional coverage"
        ),
    )
}


def select(
    tests: Sequence[str],
    coverage: CoverageMap,
    changed: AbstractSet[Hashable],
    ordering: SelectionOrdering = "id",
) -> list[str]:
    """The tests of ``tests`` (original order) covering any ``changed`` element, ordered.

    ``ordering`` is "id" (keep the original order), "total" or "additional" coverage.
    """
    check_unique(tests)
    picked = [t for t in tests if not changed.isdisjoint(coverage.get(t, ()))]
    if ordering == "id":
        return picked
    if ordering in ("total", "additional"):
        return prioritize(picked, coverage, ordering)
    raise UsageError(f"unknown ordering {ordering!r}; use 'id', 'total' or 'additional'")


def algorithm(label: str) -> SelectionAlgorithm:
    """The Table 2 row for ``label`` ("S1".."S6", case-insensitive)."""
    try:
        return ALGORITHMS[label.upper()]
    except KeyError:
        raise UsageError(
            f"unknown selection algorithm {label!r}; choose one of {sorted(ALGORITHMS)!r}"
        ) from None


def run_algorithm(
    label: str,
    tests: Sequence[str],
    statement_coverage: CoverageMap,
    changed: Mapping[str, AbstractSet[int]],
    functions: FunctionRanges | None = None,
) -> list[str]:
    """Run Table 2's algorithm ``label`` from statement coverage and changed lines.

    ``statement_coverage`` maps tests to ``(file, line)`` elements and ``changed`` maps
    files to changed old-version lines (see :func:`changed_lines`). The function-level
    algorithms S4-S6 also need the old version's ``functions`` ranges, from which both
    the per-test function coverage and the changed functions are derived.
    """
    algo = algorithm(label)
    if algo.granularity == "statement":
        elements: set[Hashable] = {(f, n) for f, ns in changed.items() for n in ns}
        return select(tests, statement_coverage, elements, algo.ordering)
    if functions is None:
        raise UsageError(
            f"{algo.label} selects by function but no function line ranges were given; "
            "pass functions={file: [(qualname, start, end), ...]} of the old version"
        )
    func_cov = function_coverage(statement_coverage, functions)
    func_changed: set[Hashable] = set(changed_functions(changed, functions))
    return select(tests, func_cov, func_changed, algo.ordering)


# --- changed lines from a unified diff ---------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual paths ("a/caf\\303\\251.py")."""
    if len(path) >= 2 and path[0] == path[-1] == '"':
        raw = path[1:-1].encode("latin-1").decode("unicode_escape")
        return raw.encode("latin-1").decode("utf-8", errors="replace")
    return path


def _diff_path(line: str, prefix: str) -> str | None:
    # "--- a/pkg/mod.py" (git appends a tab when the name contains a space)
    name = _unquote(line[4:].rstrip("\n").rstrip("\t"))
    if name == "/dev/null":
        return None
    if prefix and name.startswith(prefix):
        name = name[len(prefix) :]
    return name


def changed_lines(diff_text: str, *, prefix: str = "a/") -> dict[str, set[int]]:
    """Changed lines of the OLD version, per old file path, from ``git diff -U0 BASE``.

    A hunk ``@@ -start,count +... @@`` with ``count > 0`` modified or deleted old lines
    ``start .. start+count-1``. A pure insertion (``count == 0``) inserts after old line
    ``start``; it changes no old line, so the lines on both sides of the insertion point
    (``start`` and ``start+1``) are marked: a test that executed either is one whose path
    the insertion may change, and over-selecting is the safe side of test selection.
    New files (``--- /dev/null``) have no old lines; deleted files contribute every
    deleted line. ``prefix`` is stripped from paths (git's default ``a/``; pass ``""``
    for ``--no-prefix`` diffs).
    """
    out: dict[str, set[int]] = {}
    current: str | None = None
    body = 0  # hunk body lines still to skip: a deleted "-- x" line must not look like a header
    for line in diff_text.splitlines():
        if body > 0:
            if not line.startswith("\\"):  # "\ No newline at end of file" is not counted
                body -= 1
            continue
        if line.startswith("--- "):
            current = _diff_path(line, prefix)
            continue
        if line.startswith("diff --git "):
            current = None
            continue
        match = _HUNK.match(line)
        if match is None:
            continue
        start = int(match.group(1))
        count = 1 if match.group(2) is None else int(match.group(2))
        body = count + (1 if match.group(4) is None else int(match.group(4)))
        if current is None:
            continue
        target = out.setdefault(current, set())
        if count > 0:
            target.update(range(start, start + count))
        else:
            target.update(n for n in (start, start + 1) if n >= 1)
    return {path: lines for path, lines in out.items() if lines}


# --- lines to functions ------------------------------------------------------------------


class _FileFunctions:
    """Innermost-enclosing-function lookup for one file's ranges."""

    def __init__(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        checked = []
        for qualname, start, end in ranges:
            if end < start:
                raise UsageError(
                    f"function range {(qualname, start, end)!r} ends before it starts; "
                    "give (qualname, first line, last line) with first <= last"
                )
            checked.append((start, end, qualname))
        # Innermost = the containing range that starts last (nested ranges lie inside);
        # among ranges starting on the same line, the shortest.
        self._ranges = sorted(checked, key=lambda r: (r[0], -r[1], r[2]))
        self._starts = [r[0] for r in self._ranges]
        self._cache: dict[int, str] = {}

    def at(self, line: int) -> str:
        hit = self._cache.get(line)
        if hit is not None:
            return hit
        name = MODULE_SCOPE
        for i in range(bisect.bisect_right(self._starts, line) - 1, -1, -1):
            start, end, qualname = self._ranges[i]
            if start <= line <= end:
                name = qualname
                break
        self._cache[line] = name
        return name


def _lookups(functions: FunctionRanges) -> dict[str, _FileFunctions]:
    return {path: _FileFunctions(ranges) for path, ranges in functions.items()}


def changed_functions(
    changed: Mapping[str, AbstractSet[int]], functions: FunctionRanges
) -> set[tuple[str, str]]:
    """The ``(file, qualname)`` of the innermost function containing each changed line.

    ``functions`` must describe the OLD version (the one ``changed`` lines refer to), so
    deleted functions count as changed. A line outside every function maps to
    ``(file, MODULE_SCOPE)``; a nested function's line maps to the nested function only,
    because only tests that execute it can observe the change.
    """
    lookups = _lookups(functions)
    empty = _FileFunctions(())
    return {
        (path, lookups.get(path, empty).at(line))
        for path, lines in changed.items()
        for line in lines
    }


def function_coverage(
    statement_coverage: CoverageMap, functions: FunctionRanges
) -> dict[str, frozenset[Hashable]]:
    """Per-test function coverage derived from per-test ``(file, line)`` coverage.

    Uses the same innermost-function rule as :func:`changed_functions`, so a test and a
    change meet on the same ``(file, qualname)`` elements. Elements that are not
    ``(file, line)`` pairs are an error.
    """
    lookups = _lookups(functions)
    empty = _FileFunctions(())
    out: dict[str, frozenset[Hashable]] = {}
    for test, elements in statement_coverage.items():
        funcs: set[Hashable] = set()
        for element in elements:
            if not (
                isinstance(element, tuple)
                and len(element) == 2
                and isinstance(element[0], str)
                and isinstance(element[1], int)
            ):
                raise UsageError(
                    f"coverage element {element!r} of {test!r} is not a (file, line) pair; "
                    "pass statement coverage to derive function coverage"
                )
            path, line = element
            funcs.add((path, lookups.get(path, empty).at(line)))
        out[test] = frozenset(funcs)
    return out
