"""iFixFlakies' Patcher as candidates (003 §2): a cleaner's statements, minimised.

The statements of a cleaner of the victim (of a state-setter, or of every member of a
state-setter group in order, for a brittle) are minimised by
:func:`~orderdep.core.ddmin.ddmin` to the ones that still make the OD test pass in its
failing order, and inserted at its start. Cleaners are tried best first
(:func:`~orderdep.analysis.repair.candidates.sources.rank_cleaners`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Callable, Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, placed
from orderdep.analysis.repair.candidates.guard_statements import guard_statements
from orderdep.analysis.repair.candidates.root_statements import restore_statements
from orderdep.analysis.repair.candidates.scoping import scope_statements
from orderdep.analysis.repair.candidates.sources import (
    FunctionSource,
    rank_cleaners,
    read_function,
    transplant_group,
)
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.screening import Screen
from orderdep.analysis.repair.verify.verify import Target
from orderdep.analysis.repair.write.patches import (
    FIXTURE_PARAMS,
    Insertion,
    function_path,
    insertion,
)
from orderdep.analysis.repair.write.unittest_patches import placements
from orderdep.core.ddmin import DDMinPreconditionError, ddmin
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

MAX_CLEANERS = 5
MAX_CLEANER_STATEMENTS = 40


class Cleaners:
    """Candidates from the statements of cleaners (state-setters, for a brittle), a donor
    at a time: :meth:`take` minimises donors, best first, until one's statements make
    the test pass in its failing order, so a suite whose screen is slow does not pay for
    every donor when the first will do; the next call goes on with the rest. For a
    brittle, each candidate also comes after each of ``resets`` (reset-method calls of
    the roots it needs, see :func:`~.generated.reset_statements`): the state is then set
    up from scratch, and not a second time where the state-setters ran before it."""

    def __init__(
        self,
        project: Path,
        screen: Screen,
        progress: Callable[[str], None],
        finding: ODFinding,
        kind: str,
        target: Target,
        victim: FunctionSource,
        culprits: Sequence[RootInfo],
        notes: list[str],
        resets: Sequence[tuple[list[str], str]] = (),
    ) -> None:
        self.project, self.screen, self.progress = project, screen, progress
        self.test = finding.test
        self.kind, self.target, self.victim = kind, target, victim
        self.culprits, self.notes, self.resets = culprits, notes, resets
        self.donors, self.what = self._donors(finding)
        self.donors = self.donors[:MAX_CLEANERS]
        if not self.donors:
            notes.append(f"cleaner: the report names no {self.what} for this test")

    def _donors(self, finding: ODFinding) -> tuple[list[list[str]], str]:
        """The donors, best first, and what they are (cleaner or state-setter)."""
        donors: list[list[str]]
        if self.kind == "victim":
            cleaners = list(dict.fromkeys(c for cs in finding.cleaners.values() for c in cs))
            ranked = rank_cleaners(self.project, cleaners, self.victim, list(self.culprits))
            return [[c] for c in ranked], "cleaner"
        donors = [[s] for s in finding.state_setters]
        donors += [list(g) for g in finding.state_setter_groups if g]
        passing = self.target.passing_orders
        prefix = passing[0][:-1] if passing else []
        if not donors and prefix:
            # classification named none: the tests of the passing order the fix is
            # verified in set the state up, so their statements are the donors
            donors = [list(prefix)]
            self.notes.append(
                "cleaner: the report names no state-setter for this test; the tests before "
                "it in its passing order are used as one"
            )
        return donors, "state-setter"

    def left(self) -> bool:
        """Whether donors are still to be minimised."""
        return bool(self.donors)

    def take(self) -> list[Candidate]:
        """The candidates of the next donors, up to and with the first whose statements
        were shown to work (the donors taken are gone); for a brittle in a TestCase, each
        also in its ``setUp``, which reads the state before the body runs."""
        out: list[Candidate] = []
        while self.donors:
            group = self.donors.pop(0)
            made, proven = self._candidates(group)
            out += made
            if proven:
                break
        if self.kind != "brittle":
            return out
        _, classes, _ = function_path(self.test)
        methods = [m for m in placements(self.victim.source, classes, polluter=False)[1:] if m]
        return [*out, *(placed(c, m) for m in methods for c in out)]

    def _candidates(self, group: list[str]) -> tuple[list[Candidate], bool]:
        kind, target, victim, culprits = self.kind, self.target, self.victim, self.culprits
        what, notes, resets = self.what, self.notes, self.resets
        out: list[Candidate] = []
        name = f"{what} {group[0]}" if len(group) == 1 else f"{what} group {' + '.join(group)}"
        self.progress(f"minimising the statements of {name}")
        try:
            sources = [read_function(self.project, d) for d in group]
        except UsageError as exc:
            notes.append(f"cleaner: {exc}")
            return out, False
        # the donor's own checks set nothing up: a patch does not repeat another test's asserts
        stmts = [
            (i, st) for i, fs in enumerate(sources) for st in fs.statements if not is_check(st)
        ]
        stmts = stmts[:MAX_CLEANER_STATEMENTS]
        if not stmts:
            notes.append(f"cleaner: {name} has no statements but its own checks")
            return out, False

        def patch(sub: list[tuple[int, str]], sources: list[FunctionSource] = sources) -> Insertion:
            return transplant_group(sub, sources, victim)

        seen: list[bool] = []

        def works(sub: list[tuple[int, str]]) -> bool:
            ins = patch(sub)
            fixtures = [f for f in ins.fixtures if f not in FIXTURE_PARAMS]
            # where the patch puts them: at the start of the body, after the set-up
            code = "\n".join(ins.statements)
            seen.append(self.screen(target, code, victim.module, fixtures, call=True))
            return seen[-1]

        kept, how = _minimised(stmts, works, name)
        proven = any(seen)  # some of its statements made the test pass
        ins = patch(kept)
        if kind == "brittle":
            for stmts_reset, what_reset in resets:
                after = insertion(ins.test, [*stmts_reset, *ins.statements], ins.fixtures)
                out.append(Candidate("cleaner", f"{how}, after {what_reset}", [after]))
        if kind == "brittle":  # the setter's writes, undone when the test ends
            scoped, changed = scope_statements(ins.statements)
            if changed:
                fixtures = ("monkeypatch", *ins.fixtures)
                out.append(
                    Candidate(
                        "cleaner",
                        f"{how}, through monkeypatch",
                        [insertion(ins.test, scoped, fixtures)],
                    )
                )
                out.append(Candidate("cleaner", how, [ins], leaks=True))
                return out, proven
            guarded = _guarded(ins, culprits, victim)
            fresh = _on_fresh_state(ins, culprits, victim)
            if fresh is not None:  # run after its state-setter, the test would set it up twice
                fresh_guarded = _guarded(fresh, culprits, victim)
                if fresh_guarded is not None:
                    how_fresh = f"{how}, on fresh state, undone when it ends"
                    out.append(Candidate("cleaner", how_fresh, [fresh_guarded]))
                out.append(Candidate("cleaner", f"{how}, on fresh state", [fresh], leaks=True))
            if guarded is not None:
                out.append(Candidate("cleaner", f"{how}, undone when it ends", [guarded]))
                out.append(Candidate("cleaner", how, [ins], leaks=True))
                return out, proven
        out.append(Candidate("cleaner", how, [ins]))
        return out, proven


def _on_fresh_state(
    ins: Insertion, roots: Sequence[RootInfo], victim: FunctionSource
) -> Optional[Insertion]:
    """``ins`` (a state-setter's writes into a brittle) preceded by statements that put the
    roots it needs back to the value they have when the brittle runs alone: a setter that
    adds to a shared object (a route to a module-scoped router) must not add twice when
    the real state-setter ran first. None when a root has no such statement."""
    return _preceded(ins, roots, victim, restore_statements)


def _guarded(
    ins: Insertion, roots: Sequence[RootInfo], victim: FunctionSource
) -> Optional[Insertion]:
    """``ins`` (a state-setter's writes into a brittle) preceded by statements that save
    the roots it needs and put them back when the test ends, so the state it sets up does
    not reach the tests after it; None when a root cannot be saved that way."""
    return _preceded(ins, roots, victim, guard_statements)


MAX_PREFIXES = 12


def _minimised(
    stmts: list[tuple[int, str]], works: Callable[[list[tuple[int, str]]], bool], name: str
) -> tuple[list[tuple[int, str]], str]:
    """The statements ddmin keeps, and how they were chosen. When all of them together
    fail (a donor that itself fails in this order raises halfway), its statements up to
    the longest prefix that works are minimised instead: what runs after a failing
    statement never set anything up. When no prefix works either, its definitions alone
    (classes and functions, decorated ones register themselves) are tried."""
    try:
        kept = ddmin(stmts, works)
    except DDMinPreconditionError:
        for end in range(len(stmts) - 1, max(0, len(stmts) - 1 - MAX_PREFIXES), -1):
            if works(stmts[:end]):
                kept = ddmin(stmts[:end], works) if end > 1 else stmts[:end]
                break
        else:
            # definitions alone: a decorated class or function registers itself (a
            # schema, a route, a plugin) where the rest needs the donor's self or fixtures
            defs = [s for s in stmts if _DEFINITION.match(s[1])]
            if defs and len(defs) < len(stmts) and works(defs):
                kept = ddmin(defs, works) if len(defs) > 1 else defs
                return kept, f"{len(kept)} definition(s) of {name}"
            # it needs its fixtures or self: only a real run can tell
            return stmts, f"the statements of {name}"
    if len(stmts) == 1:
        return kept, f"the statement of {name}"
    if len(kept) == len(stmts):
        return kept, f"the {len(stmts)} statements of {name}"
    return kept, (
        f"{len(kept)} of the {len(stmts)} statements of {name} (minimised by delta debugging)"
    )


_CHECK = re.compile(r"(assert\b|self\.(assert\w*|fail)\()")
_DEFINITION = re.compile(r"\s*(@|class\s|def\s|async\s+def\s)")


def is_check(statement: str) -> bool:
    """An ``assert`` statement or a ``self.assert...(...)`` call: a test checking its own
    outcome (``with self.assertRaises(...)`` runs code, so it is not one)."""
    return bool(_CHECK.match(statement.lstrip()))


RootStatements = Callable[[RootInfo, ModuleNames, Optional[str]], list[tuple[list[str], list[str]]]]


def outermost_files(
    roots: Sequence[RootInfo], absent: Callable[[RootInfo], bool]
) -> list[RootInfo]:
    """``roots`` without the files and directories inside a directory that is itself one
    of them and ``absent`` (made by the test): removing it removes them, so a set-up
    that writes a cache directory gets one clean-up line, not one per file in it."""
    made = [r.path.rstrip("/") for r in roots if r.kind == "file" and r.path
            and r.name.endswith("/") and absent(r)]  # fmt: skip
    return [
        r
        for r in roots
        if not (
            r.kind == "file"
            and r.path
            and any(r.path.rstrip("/").startswith(d + "/") for d in made)
        )
    ]


def _preceded(
    ins: Insertion, roots: Sequence[RootInfo], victim: FunctionSource, make: RootStatements
) -> Optional[Insertion]:
    """``ins`` preceded by ``make``'s first statements for each root, taken as it is when
    the brittle starts (unset when it runs alone, say); None when a root has none."""
    if not roots:
        return None
    names = ModuleNames.parse(victim.source, victim.module)
    stmts: list[str] = []
    fixtures: list[str] = []
    for root in outermost_files(roots, lambda r: not r.failing.present):
        alone = dataclasses.replace(root, passing=root.failing, failing=root.passing)
        alts = make(alone, names, victim.module)
        if not alts:
            return None
        stmts += alts[0][0]
        fixtures += alts[0][1]
    return insertion(ins.test, [*stmts, *ins.statements], [*fixtures, *ins.fixtures])
