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

from orderdep.analysis.repair.candidates.candidates import Candidate, root_cause_rank
from orderdep.analysis.repair.candidates.copy_paths import relocated
from orderdep.analysis.repair.write.patches import Changes, apply_insertions, unified_diff
from orderdep.engine.tempdirs import PREFIX
from orderdep.errors import UsageError

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


def ranked_patches(
    candidates: Sequence[Candidate], project: Path, strategies: Sequence[str], notes: list[str]
) -> list[tuple[Candidate, Changes]]:
    """Each candidate with its changes to ``project``, best first: the root cause before
    a fixture before a change to the OD test (:func:`root_cause_rank`), changes that end
    with the test before ones that leak state, a reset in place before a new object made
    in the polluted one's place, a fixture putting back a whole container before one
    putting back some of its keys, then the fewest changed lines (long lines
    count more); at equal size iFixFlakies' cleaners, then ODRepair's generated calls (003
    §5.2 recommends that order), then the rest in ``strategies`` order; then characters.
    A candidate that names orderdep's temporary copy, does not apply, changes nothing or
    repeats an earlier one's patch is left out (the first two with a note in ``notes``)."""
    built: list[tuple[tuple[int, bool, bool, bool, int, int, int, int], Candidate, Changes]] = []
    seen: set[str] = set()
    for i, cand in enumerate(candidates):
        cand = relocated(cand, project)  # paths into orderdep's copy, as the project's own
        private = workdir_path(cand, project)
        if private is not None:
            notes.append(
                f"{cand.strategy}: not offered ({cand.description}): it names {private!r}, "
                "in orderdep's temporary copy of the project, gone after the run"
            )
            continue
        try:
            changes = apply_insertions(project, cand.insertions)
        except UsageError as exc:
            notes.append(f"{cand.strategy}: {exc}")
            continue
        key = unified_diff(changes)
        if not changes or key in seen:
            continue
        seen.add(key)
        size = (reading_size(key), list(strategies).index(cand.strategy), changed_chars(key), i)
        rank = (root_cause_rank(cand), cand.leaks, cand.remade, cand.keys_only)
        built.append(((*rank, *size), cand, changes))
    built.sort(key=lambda b: b[0])
    return [(cand, changes) for _, cand, changes in built]
