"""Repair OD tests: build candidate patches by five strategies, verify, rank (003 §2, §3).

Strategies, each producing :class:`~orderdep.analysis.repair.write.patches.Insertion` s:

``cleaner``
    iFixFlakies' Patcher (003 §2): the statements of a cleaner of the victim (of a
    state-setter, or of every member of a state-setter group in order, for a brittle),
    minimised by :func:`~orderdep.core.ddmin.ddmin` to the ones that still make the OD
    test pass in its failing order, inserted at its start. Cleaners are tried best first
    (:func:`~orderdep.analysis.repair.candidates.sources.rank_cleaners`): those of the victim's own
    module, then those sharing its fixtures or naming the polluted root's module, then the
    rest (:mod:`~orderdep.analysis.repair.candidates.cleaners`). A brittle's also come after each
    parameterless reset-method of the roots it needs, so its state is set up from scratch.
``generated``
    ODRepair's Generator (003 §3.2): the Debugger names the polluted root, the
    reset-method finder and literal miner (:mod:`.resets`, :mod:`.reset_calls`)
    propose call sequences, the ones that work are minimised and inserted likewise.
``restore``
    Put the polluted root back to its passing value at the start of the OD test, in
    place or through ``monkeypatch`` (undone after the test); a wide fixture's value gets
    its fresh content back, a module planted into ``sys.modules`` is removed.
``polluter``
    Make each polluter undo its write when it ends (``monkeypatch`` on a copy, or a
    finaliser), in its body, its ``setUp``/``setUpClass`` or a fixture of the project it
    uses (whose teardown may be the write), so the victim is safe in every order.
``fixture``
    Where the state lives in fixtures (:mod:`~orderdep.analysis.repair.candidates.fixture_candidates`):
    a wide fixture the victim shares with a polluter made function-scoped, an autouse
    fixture in their ``conftest.py`` that saves the polluted root and puts it back around
    every test of that directory, or a brittle requesting the fixture its state-setter
    uses (:mod:`~orderdep.analysis.repair.candidates.setter_fixtures`).

Candidate statements are first screened cheaply: the debug probe executes them right
before the OD test in its failing order(s) on the unpatched project (statements that
need fixtures run after the test's setup, with the fixtures' values). Each candidate is
then turned into a real patch and verified on a patched copy (:mod:`.verify`). The first
verified candidate wins, in this order (:mod:`.ranking`): the root cause (a polluter
that cleans up after itself, a fixture no longer shared), then an autouse fixture
cleaning up after every test, then a change to the OD test (before a polluter's
clean-up when the search for its polluters did not finish: a polluter it did not reach
would still leave the state); changes that end with the test before ones that leak
state; then the fewest changed lines, the strategy listed first, the fewest changed
characters. A verified cleaner that screening could not minimise is shrunk on real runs
(:mod:`.shrink`).
Unverified candidates are never offered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.analysis.classify_marks import polluters_incomplete
from orderdep.analysis.repair.candidates.base_set_ups import base_set_up_candidates
from orderdep.analysis.repair.candidates.before_fixtures import before_fixtures
from orderdep.analysis.repair.candidates.candidates import (
    Candidate,
    target_for,
    with_comments,
)
from orderdep.analysis.repair.candidates.cleaners import Cleaners
from orderdep.analysis.repair.candidates.file_copies import own_copy_candidates
from orderdep.analysis.repair.candidates.fixture_candidates import (
    narrow_candidates,
    setup_class_candidates,
    setup_function_candidates,
)
from orderdep.analysis.repair.candidates.garbage import garbage_candidates
from orderdep.analysis.repair.candidates.generated import reset_statements
from orderdep.analysis.repair.candidates.param_copies import param_copy_candidates
from orderdep.analysis.repair.candidates.ranking import (
    ranked_patches,
    to_verify,
)
from orderdep.analysis.repair.candidates.root_candidates import root_candidates
from orderdep.analysis.repair.candidates.root_statements import restore_statements
from orderdep.analysis.repair.candidates.setter_fixtures import setter_fixture_candidates
from orderdep.analysis.repair.candidates.shrink import shrink_verified
from orderdep.analysis.repair.candidates.sources import (
    FunctionSource,
    doctest_source,
    read_function,
)
from orderdep.analysis.repair.collection_fix import STRATEGY as MODULE
from orderdep.analysis.repair.fix_result import Fix, FixResult, Rejected
from orderdep.analysis.repair.locate.debugger import DebugError, NotReproduced, debug, orders_for
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.polluter_roots import every_polluters_roots
from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.analysis.repair.locate.screening import Screener
from orderdep.analysis.repair.verify.patchset import distinct
from orderdep.analysis.repair.verify.verify import Target, Verifier
from orderdep.analysis.repair.write.patches import (
    apply_insertions,
    changed_lines,
)
from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import UsageError

# MODULE: a brittle that fails only as `pytest FILE` (repair/collection_fix.py)
STRATEGIES = ("cleaner", "generated", "restore", "polluter", "fixture", MODULE)
STRATEGY_CHOICES = (*STRATEGIES, "auto")
MAX_VERIFY = 8
# rejected candidates kept per test for a repair of two entangled tests (entangled.py)
KEPT_REJECTED = 4

Progress = Callable[[str], None]


class Repairer:
    """Finds verified fixes for the OD tests of one project."""

    def __init__(
        self,
        config: EngineConfig,
        engine: Engine,
        *,
        strategy: str = "auto",
        progress: Optional[Progress] = None,
        full_suite: bool = True,
        max_verify: int = MAX_VERIFY,
        nd_tests: Sequence[str] = (),
    ) -> None:
        if strategy not in STRATEGY_CHOICES:
            raise UsageError(
                f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGY_CHOICES)}"
            )
        self.config = config
        self.engine = engine
        self.strategies = STRATEGIES if strategy == "auto" else (strategy,)
        self.progress = progress or (lambda message: None)
        self.verifier = Verifier(config, engine, full_suite=full_suite, nd_tests=nd_tests)
        self.project = self.verifier.sources  # the test ids' paths start here
        self.max_verify = max_verify
        self.screen = Screener(engine)

    # -- the whole repair of one OD test --------------------------------------------------
    def repair(
        self, finding: ODFinding, orders: Optional[tuple[str, list[str], list[str]]] = None
    ) -> FixResult:
        """Candidates of every chosen strategy, screened, then verified smallest first;
        ``orders`` (kind, failing order, passing order) overrides what the debugger runs."""
        try:
            kind, failing, passing = orders or orders_for(finding)
        except UsageError as exc:
            return FixResult(finding.test, finding.kind or "unknown", notes=[str(exc)])
        try:
            victim = read_function(self.project, finding.test)
        except UsageError as exc:
            doctest = doctest_source(self.project, finding.test)
            if doctest is None:
                return FixResult(finding.test, kind, notes=[str(exc)])
            victim = doctest  # fixed around it: its docstring is not edited
        target = target_for(finding, kind, failing, passing)
        result = FixResult(finding.test, kind, target=target)
        if kind == "brittle" and "fixture" in self.strategies:
            # a set-up that skips its base's: one call, verified before any debugging
            first = base_set_up_candidates(self.project, finding)
            if first:
                result.candidates = len(first)
                self._rank_and_verify(first, target, result)
                if result.fix is not None:
                    return result
        candidates: list[Candidate] = []
        needs_roots: tuple[str, ...] = ("generated", "restore", "polluter", "fixture")
        if kind == "brittle":
            needs_roots += ("cleaner",)  # its state-setters replay after the roots' resets
        if any(s in self.strategies for s in needs_roots):
            self.progress(f"debugging {finding.test}")
            try:
                result.debug = debug(
                    self.engine,
                    finding.test,
                    kind=kind,
                    failing_order=failing,
                    passing_order=passing,
                )
            except NotReproduced as exc:
                result.reproduced = False
                result.notes.append(f"debugger: {exc}")
                return result
            except DebugError as exc:
                result.notes.append(f"debugger: {exc}")
            if result.debug is not None and result.debug.test_module:
                victim.module = result.debug.test_module
            if result.debug is not None:
                result.debug = self._every_polluter(result.debug, target, victim, result.notes)
        donors: Optional[Cleaners] = None
        if "cleaner" in self.strategies:
            culprits = result.debug.culprits if result.debug is not None else []
            resets = reset_statements(self.project, victim, culprits) if kind == "brittle" else []
            donors = Cleaners(
                self.project, self.screen, self.progress, finding, kind, target, victim,
                culprits, result.notes, resets,
            )  # fmt: skip
            candidates += donors.take()
        if "fixture" in self.strategies and kind == "victim":
            candidates += narrow_candidates(self.project, finding)
            candidates += setup_function_candidates(self.project, finding)
            candidates += setup_class_candidates(self.project, finding)
            if result.debug is not None:
                candidates += own_copy_candidates(finding, result.debug)
        if "fixture" in self.strategies and kind == "brittle":
            candidates += setter_fixture_candidates(self.project, finding)
        if "polluter" in self.strategies and kind == "victim":
            candidates += param_copy_candidates(self.project, finding)
        if result.debug is not None:
            candidates += root_candidates(
                self.project, self.strategies, self.screen, self.progress,
                finding, kind, target, victim, result.debug, result.notes,
            )  # fmt: skip
        if "restore" in self.strategies:
            candidates += garbage_candidates(finding, kind, result.debug)
        setters = finding.state_setters or [m for g in finding.state_setter_groups for m in g]
        early: list[Candidate] = []
        if kind == "brittle" and result.debug is not None:
            early = before_fixtures(candidates, setters)
            if result.debug.failing_outcome == "error":
                # it errors in a fixture's set-up: the body starts too late for its set-up
                candidates, early = candidates + early, []
        roots = [r.name for r in result.debug.culprits] if result.debug is not None else []
        partial = kind == "victim" and polluters_incomplete(finding)
        candidates = [
            dataclasses.replace(
                with_comments(c, finding, kind, roots), partial=partial and c.strategy == "polluter"
            )
            for c in candidates
        ]
        result.candidates += len(candidates)
        self._rank_and_verify(candidates, target, result)
        if result.fix is None and early:
            # a fixture the test requests may read the state before the body runs (a
            # mock built from a class the setter completes): the same set-up, first
            early = [with_comments(c, finding, kind, roots) for c in early]
            result.candidates += len(early)
            self._rank_and_verify(early, target, result)
        while result.fix is None and donors is not None and donors.left():
            # the donors not minimised while the first that worked was enough
            more = donors.take()
            more = [with_comments(c, finding, kind, roots) for c in more]
            result.candidates += len(more)
            self._rank_and_verify(more, target, result)
        return result

    def _every_polluter(
        self, dbg: DebugResult, target: Target, victim: FunctionSource, notes: list[str]
    ) -> DebugResult:
        """The roots of every polluter of a victim, not only the first's (:mod:`.polluter_roots`)."""
        names = ModuleNames.parse(victim.source, victim.module)

        def debug_order(order: list[str]) -> DebugResult:
            self.progress(f"debugging {dbg.test} after {order[0]}")
            return debug(
                self.engine, dbg.test, kind=dbg.kind, failing_order=order,
                passing_order=dbg.passing_order,
            )  # fmt: skip

        return every_polluters_roots(
            dbg, target, self.screen, debug_order,
            lambda r: restore_statements(r, names, victim.module), victim.module, notes,
        )  # fmt: skip

    def reuse(self, finding: ODFinding, fix: Fix) -> Optional[FixResult]:
        """``fix`` (of another instance of the same parametrized test function) for
        ``finding``, when it verifies for it too: one patch per test function."""
        try:
            kind, failing, passing = orders_for(finding)
        except UsageError:
            return None
        target = target_for(finding, kind, failing, passing)
        self.progress(f"verifying the patch of {fix.test} for {finding.test}")
        check = self.verifier.verify(fix.changes, target)
        if not check.ok:
            return None
        shared = dataclasses.replace(fix, test=finding.test, verification=check)
        return FixResult(finding.test, kind, fix=shared, target=target)

    def merge(self, first: Fix, second: Fix) -> Fix:
        """One fix with the insertions of both (an insertion both have is made once)."""
        insertions = distinct([*first.insertions, *second.insertions])
        changes = apply_insertions(self.project, insertions)
        return dataclasses.replace(second, insertions=insertions, changes=changes)

    def _rank_and_verify(
        self, candidates: list[Candidate], target: Target, result: FixResult
    ) -> None:
        ranked = ranked_patches(candidates, self.project, STRATEGIES, result.notes)
        if not ranked:
            result.notes.append("no candidate patch to verify")
        chosen = to_verify(ranked, lambda b: b[0].strategy, self.max_verify)
        for cand, changes in chosen:
            size = changed_lines(changes)
            self.progress(f"verifying a {cand.strategy} patch ({size} changed line(s))")
            result.verified += 1
            check = self.verifier.verify(changes, target)
            if check.ok:
                cand, changes, check = shrink_verified(
                    cand, changes, check, self.verifier, target, self.progress
                )
                result.fix = Fix(
                    target.test, cand.strategy, cand.description, cand.insertions, changes, check
                )
                return
            result.notes.append(
                f"{cand.strategy}: rejected ({cand.description}): {check.summary()}"
            )
            if len(result.rejected) < KEPT_REJECTED:
                result.rejected.append(
                    Rejected(cand.strategy, cand.description, cand.insertions, check.broken)
                )
