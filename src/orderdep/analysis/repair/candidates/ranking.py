"""Which candidate patches ``fix`` verifies, and which it never offers.

Verification is the expensive step (a patched copy run in several orders), so ``fix``
verifies the best-ranked few (:func:`to_verify`) and stops at the first that holds.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional, TypeVar

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.engine.tempdirs import PREFIX

# Verifications each strategy gets beyond the first ``limit`` when none of those came from it.
MAX_PER_STRATEGY = 3


def undone_by_monkeypatch(cand: Candidate) -> bool:
    """Whether every change ``cand`` makes goes through ``monkeypatch`` (undone when the
    test ends): its other statements only import or name modules."""
    return all(
        st.startswith(("monkeypatch.", "import ", "from "))
        or (" = " in st and ".import_module(" in st)
        for ins in cand.insertions
        for st in ins.statements
    )


T = TypeVar("T")


def to_verify(
    ranked: Sequence[T],
    strategy: Callable[[T], str],
    limit: int,
    per_strategy: int = MAX_PER_STRATEGY,
) -> list[T]:
    """The first ``limit`` of ``ranked``, then up to ``per_strategy`` of each strategy none
    of those came from: variants of one rejected idea (the same guard in each polluter, in
    setUp, as a fixture) must not use up the verifications the other strategies need."""
    head = list(ranked[:limit])
    tried = {strategy(item) for item in head}
    counts: dict[str, int] = {}
    for item in ranked[limit:]:
        key = strategy(item)
        if key not in tried and counts.get(key, 0) < per_strategy:
            counts[key] = counts.get(key, 0) + 1
            head.append(item)
    return head


def workdir_path(cand: Candidate, project: Optional[Path] = None) -> Optional[str]:
    """A path into one of orderdep's working directories that ``cand`` would write into
    the tests (a value captured in a run's copy of the project, such as a template path
    a module computed from its ``__file__``): it is gone once the run ends, so such a
    patch cannot hold. None when there is none."""
    marker = re.escape(os.path.join(tempfile.gettempdir(), PREFIX))
    found = re.compile(marker + r"[^'\"\s]*")
    own = str(project.resolve()) if project is not None else None
    for ins in cand.insertions:
        for statement in ins.statements:
            for hit in found.finditer(statement):
                # the user's own project may live in such a directory too
                if own is None or not (hit.group(0) + "/").startswith(own + "/"):
                    return hit.group(0)
    return None


LINE_WIDTH = 100


def _changed(diff: str) -> list[str]:
    """The added and removed lines of ``diff`` (file headers not counted)."""
    return [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def reading_size(diff: str) -> int:
    """The changed lines of ``diff`` as a reader sees them: a line longer than
    :data:`LINE_WIDTH` counts once per started ``LINE_WIDTH`` characters, so a file's
    content restored as one huge literal does not rank as a one-line patch."""
    return sum(
        max(1, -(-len(line[1:].strip()) // LINE_WIDTH))
        for line in _changed(diff)
        if line[1:].strip()
    )


def changed_chars(diff: str) -> int:
    """The characters of ``diff``'s added and removed lines: the last tie-breaker between
    patches of equal :func:`reading_size` and strategy."""
    return sum(len(line) for line in _changed(diff))
