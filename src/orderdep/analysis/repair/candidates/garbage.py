"""A victim of garbage the cyclic collector has not freed yet.

A class defined inside a test stays in its base's ``__subclasses__()`` (and an object
in a cycle stays in a ``WeakSet`` or weak registry) until the cyclic garbage collector
frees it, which it does when enough objects have been allocated since, not when the
test ends. A registry built from live subclasses then still lists a dead test's class
in the next test. No root the state walk fingerprints differs between the failing and
the passing order, so the debugger names none; collecting the garbage first is the
repair (``gc.collect()`` at the start of the victim), offered only when the debugger
reproduced the failure and named no culprit, and kept only if it verifies.
"""

from __future__ import annotations

from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding

STATEMENTS = ("import gc", "gc.collect()")
COMMENT = "Free what earlier tests left for the garbage collector (classes defined in tests)"


def garbage_candidates(
    finding: ODFinding, kind: str, debug: Optional[DebugResult]
) -> list[Candidate]:
    """``gc.collect()`` at the start of a victim no root explains (see the module)."""
    if kind != "victim" or debug is None or debug.found:
        return []
    insertion = Insertion(finding.test, STATEMENTS, comment=COMMENT)
    return [Candidate("restore", "collect the garbage earlier tests left", [insertion])]


__all__ = ["garbage_candidates"]
