"""A model of pytest's collection for the collection checks: a test passes only when the
files whose import-time code it needs are collected, and none whose code breaks it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orderdep.core.outcomes import OrderResult, Outcome, TestResult

IDS = [
    "t/test_a.py::test_1",
    "t/test_a.py::test_2",
    "t/test_b.py::test_1",
    "t/test_c.py::test_1",
    "t/test_c.py::test_2",
    "t/test_d.py::test_1",
]


class Collection:
    """``needs``: test -> the file whose collection it needs; ``broken``: files that fail
    to collect without their needed file (every test of them errors); ``breaks``: test ->
    the file whose collection makes it fail."""

    def __init__(
        self,
        needs: Mapping[str, str],
        broken: Sequence[str] = (),
        breaks: Mapping[str, str] = {},
    ) -> None:
        self.needs, self.broken, self.breaks = needs, set(broken), breaks
        self.calls: list[tuple[list[str], list[str]]] = []

    def run_collecting(self, order: Sequence[str], paths: Sequence[str]) -> OrderResult:
        self.calls.append((list(order), list(paths)))
        results = []
        for test in order:
            needed = self.needs.get(test)
            ok = (needed is None or needed in paths) and self.breaks.get(test) not in paths
            own = test.split("::")[0]
            message = "error collecting its file: ImportError" if own in self.broken else ""
            outcome = Outcome.PASSED if ok else Outcome.ERROR if message else Outcome.FAILED
            results.append(TestResult(test, outcome, 0.0, "" if ok else message))
        return OrderResult(list(order), results, wall_seconds=1.0)
