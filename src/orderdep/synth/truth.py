"""Ground truth of a generated (or hand-written) suite: which tests are OD and why.

``specs`` are the order-dependent tests (004 §2: victims and brittles with their
polluters, cleaners and state-setters); ``nio_tests`` fail when they run a second time in
one process, ``nd_tests`` fail at random whatever the order, ``always_failing`` fail in
every order. :meth:`GroundTruth.expected_failures` predicts a real run of any order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from orderdep.core.odmodel import ODSpec, fails_at
from orderdep.core.suite import Suite
from orderdep.errors import ReportError
from orderdep.synth.model import ModelExecutor

FORMAT = "orderdep.groundtruth/1"


@dataclass
class GroundTruth:
    """Exact order dependencies of a suite, keyed by pytest node id."""

    tests: list[str]  # every test, in original (collection) order
    specs: list[ODSpec] = field(default_factory=list)
    nd_tests: list[str] = field(default_factory=list)
    nio_tests: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)
    channels: dict[str, str] = field(default_factory=dict)  # planted test -> channel name
    locations: dict[str, str] = field(default_factory=dict)  # planted test -> where its state lives
    seed: Optional[int] = None
    nd_rate: float = 0.5
    plan: dict[str, Any] = field(default_factory=dict)  # the SuitePlan that made it, as JSON

    @property
    def od_tests(self) -> list[str]:
        """Victims and brittles, in original order."""
        ids = {s.test for s in self.specs}
        return [t for t in self.tests if t in ids]

    def spec(self, test: str) -> ODSpec:
        for s in self.specs:
            if s.test == test:
                return s
        raise KeyError(test)

    def suite(self, rootdir: str = "") -> Suite:
        return Suite.from_ids(self.tests, rootdir=rootdir)

    def model_specs(self) -> list[ODSpec]:
        """``specs`` plus each NIO test as a victim of itself (what one process really does)."""
        nio = [ODSpec(t, "victim", polluters=[t]) for t in self.nio_tests]
        return [*self.specs, *nio]

    def model_executor(self, seed: int = 0) -> ModelExecutor:
        """A pure simulation of this suite that agrees with real runs (up to ND tests)."""
        return ModelExecutor(
            self.suite(),
            self.model_specs(),
            nd_tests=self.nd_tests,
            always_failing=self.always_failing,
            nd_rate=self.nd_rate,
            seed=seed,
        )

    def expected_failures(self, order: Sequence[str]) -> list[Optional[bool]]:
        """For each position of ``order``: whether it fails (None for ND tests)."""
        specs = {s.test: s for s in self.model_specs()}
        nd, failing = set(self.nd_tests), set(self.always_failing)
        out: list[Optional[bool]] = []
        for i, test in enumerate(order):
            if test in nd:
                out.append(None)
            elif test in failing:
                out.append(True)
            else:
                spec = specs.get(test)
                out.append(spec is not None and fails_at(spec, order[:i]))
        return out

    def failing_in(self, order: Sequence[str]) -> list[str]:
        """Tests that fail (at some position) in ``order``, ND tests excluded."""
        out: dict[str, None] = {}
        for test, failed in zip(order, self.expected_failures(order)):
            if failed:
                out[test] = None
        return list(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "seed": self.seed,
            "nd_rate": self.nd_rate,
            "plan": dict(self.plan),
            "tests": list(self.tests),
            "specs": [s.to_json() for s in self.specs],
            "nd_tests": list(self.nd_tests),
            "nio_tests": list(self.nio_tests),
            "always_failing": list(self.always_failing),
            "channels": dict(self.channels),
            "locations": dict(self.locations),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GroundTruth:
        if data.get("format") != FORMAT:
            raise ReportError(
                f"not a ground-truth file: format is {data.get('format')!r}, expected {FORMAT!r}; "
                "write it with GroundTruth.write()"
            )
        try:
            return cls(
                tests=[str(t) for t in data["tests"]],
                specs=[ODSpec.from_json(s) for s in data.get("specs", [])],
                nd_tests=list(data.get("nd_tests", [])),
                nio_tests=list(data.get("nio_tests", [])),
                always_failing=list(data.get("always_failing", [])),
                channels=dict(data.get("channels", {})),
                locations=dict(data.get("locations", {})),
                seed=data.get("seed"),
                nd_rate=float(data.get("nd_rate", 0.5)),
                plan=dict(data.get("plan") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(
                f"malformed ground-truth data ({exc!r}); regenerate it with generate_suite()"
            ) from exc

    def write(self, path: Path | str) -> Path:
        out = Path(path)
        out.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        return out

    @classmethod
    def read(cls, path: Path | str) -> GroundTruth:
        source = Path(path)
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ReportError(f"cannot read ground truth {str(source)!r}: {exc}") from exc
        if not isinstance(data, dict):
            raise ReportError(f"{str(source)!r} does not hold a JSON object; expected {FORMAT}")
        return cls.from_json(data)
