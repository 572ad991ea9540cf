"""orderdep: find, explain, tolerate and repair order-dependent tests in pytest suites."""

from __future__ import annotations

from orderdep.core.outcomes import OrderResult, Outcome, TestResult
from orderdep.core.suite import Suite, TestInfo
from orderdep.errors import OrderdepError

__version__ = "0.1.0"

__all__ = [
    "OrderResult",
    "OrderdepError",
    "Outcome",
    "Suite",
    "TestInfo",
    "TestResult",
    "__version__",
]
