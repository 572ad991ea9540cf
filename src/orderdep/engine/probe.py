"""Probes: code the engine loads into the child process that runs an order.

A probe observes or changes interpreter state around each test (PRADET's read/write
capture, the repair debugger's state restores). The child imports ``module``, calls
``make_probe(options, rootdir)`` once, then for each position ``before_test(index, test_id)``
(before setup) and ``after_test(index, test_id)`` (after teardown), and finally
``result()``, whose JSON-able value becomes ``OrderResult.probe``. A probe must never
raise into the test run; the child records probe exceptions under ``probe["error"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ProbeSpec:
    """Which probe module to load in the child and its JSON-able options."""

    module: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"module": self.module, "options": self.options}


class Probe(Protocol):
    def before_test(self, index: int, test_id: str) -> None: ...

    def after_test(self, index: int, test_id: str) -> None: ...

    def result(self) -> dict[str, Any]: ...
