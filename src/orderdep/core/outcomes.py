"""Outcomes of running one order of tests."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any


class Outcome(str, enum.Enum):
    """What happened to one test at one position of an order."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # setup or teardown failed
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    NOT_RUN = "not-run"

    def __str__(self) -> str:
        return self.value

    @property
    def is_failure(self) -> bool:
        """A bad outcome: the order made this test fail, error, hang or crash."""
        return self in _FAILURES

    @property
    def is_pass(self) -> bool:
        """A good outcome for OD purposes (skips and expected failures count as passing)."""
        return self in _PASSES


_FAILURES = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT, Outcome.CRASHED})
_PASSES = frozenset({Outcome.PASSED, Outcome.SKIPPED, Outcome.XFAILED, Outcome.XPASSED})


@dataclass(frozen=True)
class TestResult:
    """The result of the test at one position of an order."""

    __test__ = False  # not a pytest test class

    test: str
    outcome: Outcome
    duration: float = 0.0
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "outcome": self.outcome.value,
            "duration": round(self.duration, 6),
            "message": self.message,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestResult:
        return cls(
            test=str(data["test"]),
            outcome=Outcome(data["outcome"]),
            duration=float(data.get("duration", 0.0)),
            message=str(data.get("message", "")),
        )


@dataclass
class OrderResult:
    """All results of one order, one per position (the same id may occur twice)."""

    order: list[str]
    results: list[TestResult]
    runner: str = ""
    wall_seconds: float = 0.0
    probe: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False
    run_id: int | None = None

    def __iter__(self) -> Iterator[TestResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def outcome_of(self, test: str, occurrence: int = -1) -> Outcome:
        """Outcome of ``test`` in this order; by default its last occurrence."""
        hits = [r.outcome for r in self.results if r.test == test]
        if not hits:
            raise KeyError(test)
        return hits[occurrence]

    def failed_tests(self) -> list[str]:
        """Ids whose (last) outcome is a failure, in order of first occurrence."""
        seen: dict[str, Outcome] = {}
        for r in self.results:
            seen[r.test] = r.outcome
        return [t for t, o in seen.items() if o.is_failure]

    @property
    def complete(self) -> bool:
        """Every position ran to an outcome (nothing crashed, timed out or was cut short)."""
        return not self.interrupted and all(
            r.outcome not in (Outcome.NOT_RUN, Outcome.CRASHED, Outcome.TIMEOUT)
            for r in self.results
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "wall_seconds": round(self.wall_seconds, 6),
            "results": [r.to_json() for r in self.results],
        }


def same_outcomes(a: Sequence[TestResult], b: Sequence[TestResult]) -> bool:
    """Whether two result lists agree test by test (pass/fail level)."""
    return len(a) == len(b) and all(
        x.test == y.test and x.outcome.is_failure == y.outcome.is_failure for x, y in zip(a, b)
    )


def restricted(result: OrderResult, ids: Sequence[str]) -> OrderResult:
    """``result`` with only the results of ``ids`` (in its order), its wall time less the
    others' own time: what an order of those tests is expected to cost (``result``
    itself when it holds nothing else)."""
    keep = set(ids)
    if all(r.test in keep for r in result.results):
        return result
    results = [r for r in result.results if r.test in keep]
    dropped = sum(r.duration for r in result.results if r.test not in keep)
    return OrderResult(
        [r.test for r in results],
        results,
        runner=result.runner,
        wall_seconds=max(0.0, result.wall_seconds - dropped),
    )
