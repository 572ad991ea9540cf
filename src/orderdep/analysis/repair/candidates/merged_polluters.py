"""One clean-up for the polluters of one module or one pytest class, not a copy in each.

A polluter candidate (:func:`~orderdep.analysis.repair.candidates.candidates.
polluter_candidates`) gives every polluter the statements that undo its change. Polluters
that write the same state in the same way get the same block, so two or more of them in
one module, or in one pytest class, would carry copies of it::

    def test_override_name(monkeypatch):
        # Undo this test's change to schemas.table_name when it ends ...
        monkeypatch.setattr(schemas, "table_name", schemas.table_name)
        ...

    def test_override_both(monkeypatch):
        # Undo this test's change to schemas.table_name when it ends ...
        monkeypatch.setattr(schemas, "table_name", schemas.table_name)
        ...

:func:`merged` is the same candidate with each such group replaced by one autouse fixture
of that module (a fixture method of that class) holding the block once: it runs around
every test there, so it undoes each polluter's change when the polluter ends. Polluters
of a ``unittest.TestCase`` have their own way to share a block (its ``setUp``,
:func:`~orderdep.analysis.repair.write.unittest_patches.placements`) and are left alone.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.write.patches import Insertion, function_path
from orderdep.analysis.repair.write.unittest_patches import testcase_methods

#: The name of the autouse fixture that holds the polluters' shared clean-up.
MERGED_FIXTURE = "_undo_each_tests_changes"

_SELF = re.compile(r"\bself\b")
GroupKey = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _key(ins: Insertion, sources: dict[str, str], project: Path) -> Optional[GroupKey]:
    """(file, classes, statements, fixtures) of an insertion at the start of a test that
    a fixture of its module or pytest class could hold instead; None for others."""
    if ins.edit != "insert" or ins.method is not None:
        return None
    path, classes, _ = function_path(ins.test)
    if path not in sources:
        try:
            sources[path] = (project / path).read_text(encoding="utf-8")
        except OSError:
            sources[path] = ""
    if not sources[path]:
        return None
    if classes and testcase_methods(sources[path], classes) is not None:
        return None  # a TestCase: its setUp is the shared place
    if not classes and any(_SELF.search(st) for st in ins.statements):
        return None
    return path, tuple(classes), ins.statements, ins.fixtures


def merged(cand: Candidate, project: Path) -> Optional[Candidate]:
    """``cand`` with the block it inserts into two or more polluter functions of one
    module (or pytest class) written once, in an autouse fixture there; None when no two
    of its polluters share a place and a block."""
    sources: dict[str, str] = {}
    groups: dict[GroupKey, list[int]] = {}
    for i, ins in enumerate(cand.insertions):
        key = _key(ins, sources, project)
        if key is not None:
            groups.setdefault(key, []).append(i)
    replaced: dict[int, Optional[Insertion]] = {}
    places: list[str] = []
    for (path, classes, statements, fixtures), members in groups.items():
        functions = {function_path(cand.insertions[i].test)[2] for i in members}
        if len(functions) < 2:
            continue
        where = "::".join([path, *classes])
        shared = Insertion(f"{where}::{MERGED_FIXTURE}", statements, fixtures, edit="autouse")
        replaced[members[0]] = shared
        replaced.update({i: None for i in members[1:]})
        places.append(f"{'class ' + classes[-1] if classes else path}")
    if not replaced:
        return None
    insertions = [replaced.get(i, ins) for i, ins in enumerate(cand.insertions)]
    return dataclasses.replace(
        cand,
        description=f"{cand.description} (once, in an autouse fixture of {', '.join(places)})",
        insertions=[i for i in insertions if i is not None],
    )


def with_merged(cands: list[Candidate], project: Path) -> list[Candidate]:
    """``cands`` with each one's :func:`merged` variant just before it."""
    out: list[Candidate] = []
    for cand in cands:
        one = merged(cand, project)
        out += [cand] if one is None else [one, cand]
    return out


__all__ = ["MERGED_FIXTURE", "merged", "with_merged"]
