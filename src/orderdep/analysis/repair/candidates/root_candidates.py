"""Candidate patches from the roots the debugger named: generated resets, restores (in
the OD test, its ``setUp``), the polluters' own clean-ups, fixtures of the project they
use, autouse fixtures and session-start copies, by root alone or together as the debug
says (:class:`~orderdep.analysis.repair.fix.Repairer` adds them to the others)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Callable

from orderdep.analysis.repair.candidates.candidates import (
    Candidate,
    combine,
    friendly,
    placed,
    polluter_candidates,
    sibling_groups,
)
from orderdep.analysis.repair.candidates.fixture_candidates import (
    autouse_candidates,
    polluter_fixture_candidates,
)
from orderdep.analysis.repair.candidates.generated import generated_candidates
from orderdep.analysis.repair.candidates.initializers import made_anew
from orderdep.analysis.repair.candidates.merged_polluters import with_merged
from orderdep.analysis.repair.candidates.ranking import undone_by_monkeypatch
from orderdep.analysis.repair.candidates.root_statements import restore_statements
from orderdep.analysis.repair.candidates.session_start import session_start_candidates
from orderdep.analysis.repair.candidates.sources import FunctionSource
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.module_roots import package_of
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.locate.screening import Screener
from orderdep.analysis.repair.verify.verify import Target
from orderdep.analysis.repair.write.patches import function_path
from orderdep.analysis.repair.write.unittest_patches import placements
from orderdep.core.report import ODFinding


def root_candidates(
    project: Path,
    strategies: Collection[str],
    screen: Screener,
    progress: Callable[[str], None],
    finding: ODFinding,
    kind: str,
    target: Target,
    victim: FunctionSource,
    dbg: DebugResult,
    notes: list[str],
) -> list[Candidate]:
    """Candidates of every strategy from the roots the debugger named (``dbg.culprits``;
    when none explains the failure, the packages' modules imported again)."""
    roots = dbg.culprits
    if not roots:
        notes.append(
            "debugger: restoring the roots that differ does not explain the failure "
            f"({len(dbg.differing)} differ)"
        )
        # modules imported again may have had side effects before the test (handlers
        # installed, registries filled): keeping the originals from the polluter on
        # can still work, which only verification can tell
        roots = [r for r in dbg.differing if package_of(r.name)]
        if not roots:
            return []
    names = ModuleNames.parse(victim.source, victim.module)
    out: list[Candidate] = []
    single = bool(dbg.polluted)
    if "generated" in strategies:
        if not single:
            notes.append(
                "generated: the roots must be reset together; only the restore and "
                "polluter strategies combine roots"
            )
        out += generated_candidates(
            project,
            screen,
            progress,
            finding,
            target,
            victim,
            roots if single else [],
            notes,
        )
    if "restore" in strategies:
        whole = kind == "brittle"

        def restores_of(r: RootInfo) -> list[tuple[list[str], list[str]]]:
            return restore_statements(r, names, victim.module, whole=whole)

        restores = combine("restore", finding.test, roots, single, restores_of, "restores")
        if kind == "brittle" and single and len(roots) > 1:
            # each root a brittle needs is necessary, none alone may be enough
            restores += combine("restore", finding.test, roots, False, restores_of, "restores")
        out += restores
        out += [] if whole else made_anew(project, victim, finding.test, roots, single, names)
        # a TestCase reads state in setUp before the body runs: restore it there too
        _, classes, _ = function_path(finding.test)
        for method in placements(victim.source, classes, polluter=False)[1:]:
            out += [placed(c, method) for c in restores if method]
    for group in sibling_groups(roots, dbg.differing) if single else []:
        # what differs on the same class goes together: one attribute's restore may
        # pass the probe yet not suffice (a helper set several of them at once)
        if "restore" in strategies:
            out += combine(
                "restore", finding.test, group, False,
                lambda r: restore_statements(r, names, victim.module), "restores",
            )  # fmt: skip
        if "polluter" in strategies and kind == "victim":
            cands = polluter_candidates(project, finding, group, False, dbg)
            out += with_merged(cands, project)
    if "polluter" in strategies and kind == "victim":
        cands = polluter_candidates(project, finding, roots, single, dbg)
        out += with_merged(cands, project)
        for group in [[r] for r in roots] if single else [roots]:
            what = ", ".join(friendly(r.name) for r in group)
            out += polluter_fixture_candidates(project, finding, group, what)
    if "fixture" in strategies and kind == "victim":
        for group in [[r] for r in roots] if single else [roots]:
            what = ", ".join(friendly(r.name) for r in group)
            out += autouse_candidates(project, finding, group, what)
            out += session_start_candidates(project, finding, group, what)
    if kind == "brittle":  # the state a restore sets up outlives the test, as a transplant's
        for cand in out:  # unless monkeypatch undoes it
            cand.leaks = cand.leaks or (
                cand.strategy == "restore" and not undone_by_monkeypatch(cand)
            )
    return out


__all__ = ["root_candidates"]
