"""The engine: run an exact order of tests from a fresh interpreter state.

Everything in orderdep that runs tests goes through an :class:`~orderdep.engine.executor.Executor`.
"""

from __future__ import annotations

from orderdep.engine.executor import Executor, ResultCallback
from orderdep.engine.probe import ProbeSpec

__all__ = ["Executor", "ProbeSpec", "ResultCallback"]
