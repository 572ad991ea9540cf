"""Repair of order-dependent tests (003): ODRepair's Debugger and Generator, iFixFlakies' patcher.

:func:`debug` names the shared-state roots that make an OD test fail;
:class:`Repairer` builds candidate patches by four strategies, verifies each on a patched
copy of the project and keeps the smallest; :func:`apply_fix` writes a fix (libcst).

Names are imported lazily: the engine loads :mod:`.debug_probe` inside every test
process, which must not pay for libcst and the rest of the repair machinery.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DebugError": "debugger",
    "DebugResult": "debugger",
    "RootInfo": "debugger",
    "debug": "debugger",
    "finding_for": "debugger",
    "infer_orders": "debugger",
    "orders_for": "debugger",
    "STRATEGIES": "fix",
    "Fix": "fix_result",
    "FixResult": "fix_result",
    "Repairer": "fix",
    "apply_fix": "fix_result",
    "Insertion": "patches",
    "apply_insertion": "patches",
    "unified_diff": "patches",
    "Target": "verify",
    "Verification": "verify",
    "Verifier": "verify",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
