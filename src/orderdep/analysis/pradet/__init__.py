"""PRADET (paper 001): data dependencies from one probed run, refined into manifest ones.

:mod:`.datadeps` builds the test dependency graph from the state probe's output
(§III-A); :mod:`.refine` tests each data dependency by running a schedule that violates
only it (§III-B). :mod:`.pipeline` runs all of it end to end: :mod:`.collection` (probed
runs and their file), refinement, :mod:`.confirm` (re-runs, alternatives, search) and
:mod:`.findings` (the report).
"""

from __future__ import annotations

from orderdep.analysis.pradet.datadeps import (
    Explanation,
    TestAccess,
    accesses,
    data_dependencies,
    explain,
    graph_from_probe,
    most_written,
)
from orderdep.analysis.pradet.manifest import ManifestDependency, RefineResult
from orderdep.analysis.pradet.refine import RefineProgress, pradet, refine

__all__ = [
    "Explanation",
    "ManifestDependency",
    "RefineProgress",
    "RefineResult",
    "TestAccess",
    "accesses",
    "data_dependencies",
    "explain",
    "graph_from_probe",
    "most_written",
    "pradet",
    "refine",
]
