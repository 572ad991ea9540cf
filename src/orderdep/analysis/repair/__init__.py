"""Repair of order-dependent tests (003): ODRepair's Debugger and Generator, iFixFlakies' patcher.

:func:`debug` names the shared-state roots that make an OD test fail;
:class:`Repairer` builds candidate patches by four strategies, verifies each on a patched
copy of the project and keeps the smallest; :func:`apply_fix` writes a fix (libcst).

Stages, one folder each: ``locate`` (where the polluted state is), ``candidates`` (what
could undo it), ``write`` (the patch as text), ``verify`` (whether it holds).

Names are imported lazily: the engine loads :mod:`.locate.debug_probe` inside every test
process, which must not pay for libcst and the rest of the repair machinery.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DebugError": "locate.debugger",
    "DebugResult": "locate.debugger",
    "RootInfo": "locate.debugger",
    "debug": "locate.debugger",
    "finding_for": "locate.debugger",
    "infer_orders": "locate.debugger",
    "orders_for": "locate.debugger",
    "STRATEGIES": "fix",
    "Fix": "fix_result",
    "FixResult": "fix_result",
    "Repairer": "fix",
    "apply_fix": "fix_result",
    "Insertion": "write.patches",
    "apply_insertion": "write.patches",
    "unified_diff": "write.patches",
    "Target": "verify.verify",
    "Verification": "verify.verify",
    "Verifier": "verify.verify",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
