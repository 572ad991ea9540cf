"""Verify a candidate fix by running the patched project (the last step of 003 §3.2.3).

A fix is only offered when, in a private copy of the project with the change applied,

1. the OD test passes in each of its failing orders (for a brittle: alone);
2. it still passes in each of its passing orders;
3. the other tests of those orders keep the outcomes they had without the change;
4. the whole suite in its original order has the outcomes it had before, except that
   failing tests may now pass (a fix for one victim can fix its siblings too); for a
   suite slow for the budget (:attr:`Verifier.suite_in_set`), once, in the check of the
   patch set, instead of for each patch; for a suite whose original order does not fit
   the budget at all, its leading tests that detection searched (:attr:`Verifier.scope`);
5. a test that failed without the change and still fails fails with the same exception
   (a polluter made to raise before it pollutes has not been repaired).

Tests known to be nondeterministic (the report's ``nd_tests``) are never compared, and in
the original order neither are tests whose outcome differed between two runs of the
unpatched suite: a test failing at random would reject good patches at random. The second
unpatched run is made only when the patched run differs from the first (a slow suite's
time each), and the first can be one an earlier command recorded in the results store.

The user's tree is never touched: the copy lives in a temporary directory and a fresh
:class:`~orderdep.engine.runner.Engine` runs it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.verify.changed_tests import ChangedCode, changed_code
from orderdep.core.outcomes import OrderResult
from orderdep.core.volatile import same_test_set
from orderdep.engine.config import EngineConfig
from orderdep.engine.dask_executor import DaskEngine
from orderdep.engine.runner import Engine
from orderdep.engine.sandbox import copy_path, copy_project
from orderdep.engine.tempdirs import make_workdir
from orderdep.errors import CollectionError, OrderdepError, OutOfTime

Changes = Mapping[str, tuple[str, str]]  # relative path -> (old text, new text)


@dataclass
class Target:
    """What a fix for one OD test must achieve."""

    test: str
    failing_orders: list[list[str]]
    passing_orders: list[list[str]]


@dataclass
class Verification:
    ok: bool
    problems: list[str] = field(default_factory=list)
    improved: list[str] = field(default_factory=list)  # other tests that now pass
    orders_run: int = 0
    ignored: list[str] = field(default_factory=list)  # nondeterministic tests that flipped
    # with keep_going: the targets' tests that still failed in one of their orders
    still_failing: list[str] = field(default_factory=list)
    cut: str = ""  # orders the budget left out of a set check that held in the rest
    # a set check's repaired tests failing in a random order as they do without the
    # patches (test -> where): a relation no report named, not the patches' doing
    elsewhere: dict[str, str] = field(default_factory=dict)
    # other tests the patch made fail where they passed (a brittle that relied on the
    # state the patch resets): a patch of theirs may make both hold together
    broken: list[str] = field(default_factory=list)
    # what ran, when not orders of the whole suite (``"`pytest FILE`"``: runs of it)
    runs_of: str = ""

    def summary(self) -> str:
        if self.ok:
            extra = f"; also fixes {', '.join(self.improved)}" if self.improved else ""
            if self.ignored:
                extra += f"; ignored nondeterministic {', '.join(self.ignored)}"
            what = f"runs of {self.runs_of}" if self.runs_of else "orders"
            return f"verified in {self.orders_run} {what}{extra}"
        return "; ".join(self.problems)


def _rebase(value: Optional[str], old: Path, new: Path) -> Optional[str]:
    """A path option pointing into the project, moved into the copy."""
    if value is None or not os.path.isabs(value):
        return value
    try:
        rel = Path(value).resolve().relative_to(old)
    except ValueError:
        return value
    return str(new / rel)


def copy_config(config: EngineConfig, project: Path) -> EngineConfig:
    """``config`` for a copy of its project at ``project`` (one worker, fresh workdir)."""
    return dataclasses.replace(
        config,
        project=project,
        jobs=1,
        workdir=None,
        rootdir=_rebase(config.rootdir, config.project, project),
        pythonpath=tuple(_rebase(p, config.project, project) or p for p in config.pythonpath),
    )


def write_changes(root: Path, changes: Changes) -> None:
    for rel, (_, new) in changes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")


_RAISED = re.compile(r"([A-Za-z_][\w.]*):(?:\s|$)")


def failure_kind(message: str) -> Optional[str]:
    """The exception a failure message names (``TypeError: ...`` gives ``TypeError``; a
    bare ``assert ...`` gives ``AssertionError``), or None when it names none."""
    if message.startswith("assert "):
        return "AssertionError"
    m = _RAISED.match(message)
    return m.group(1).rsplit(".", 1)[-1] if m else None


def _compare(
    before: OrderResult,
    after: OrderResult,
    target: str,
    where: str,
    out: Verification,
    ignore: AbstractSet[str] = frozenset(),
    changed: Optional[ChangedCode] = None,
) -> None:
    """Passing tests must still pass; failing ones may now pass (noted, unless the target).

    Tests in ``ignore`` (nondeterministic) are not compared; those that flipped are noted.
    A failing test must fail the same way when the patch changed code it runs
    (``changed``; None: any test).
    """
    for b, a in zip(before.results, after.results):
        if b.test in ignore and b.test != target:
            if a.outcome.is_failure != b.outcome.is_failure:
                out.ignored = list(dict.fromkeys([*out.ignored, b.test]))
            continue
        if a.outcome.is_failure and not b.outcome.is_failure:
            out.problems.append(f"{b.test} now {a.outcome.value} in {where}")
            out.broken = list(dict.fromkeys([*out.broken, b.test]))
        elif b.outcome.is_failure and not a.outcome.is_failure and b.test != target:
            out.improved = list(dict.fromkeys([*out.improved, b.test]))
        elif b.outcome.is_failure and b.test != target:
            if changed is not None and not changed.touches(b.test):
                continue  # it starts from cleaner state now: it may get further
            # a test failing anyway must fail the same way: a change that makes a polluter
            # raise before it pollutes (a copy of something that cannot be copied) hides
            # the pollution instead of undoing it
            was, now = failure_kind(b.message), failure_kind(a.message)
            if was and now and was != now:
                out.problems.append(f"{b.test} now fails with {now} (was {was}) in {where}")


class Verifier:
    """Runs candidate changes of one project; remembers the unpatched outcomes."""

    def __init__(
        self,
        config: EngineConfig,
        engine: Engine,
        *,
        full_suite: bool = True,
        nd_tests: Iterable[str] = (),
    ) -> None:
        self.config = config
        self.engine = engine  # on the unpatched project: the outcomes to compare with
        self.full_suite = full_suite
        # a suite slow for the budget: each patch is verified in its own orders, and the
        # whole suite runs once, in the check of the patch set (not for each patch)
        self.suite_in_set = False
        # the leading tests of the original order that stand for it, when the whole order
        # does not fit the budget (what detect searched, see analysis.fork_part)
        self.scope: Optional[list[str]] = None
        self.nd_tests = frozenset(nd_tests)
        self._before: dict[tuple[str, ...], OrderResult] = {}
        self._suite_walls: list[float] = []  # runs of the whole suite, unpatched
        self._unstable: Optional[frozenset[str]] = None
        self.verifications = 0
        # the unpatched project's test processes stop before a patched copy starts: its
        # collection failed while they ran (a port bound at import, say)
        self.exclusive = False

    @property
    def sources(self) -> Path:
        """Where the test ids' paths start: the project, or pytest's rootdir inside it
        (``tests/`` when the ini file is there); patches name files from here."""
        return self.config.project / self.engine.suite.id_root

    def original_order(self) -> list[str]:
        """The original order a patch is checked in: the suite's, or its :attr:`scope`."""
        return list(self.scope) if self.scope else list(self.engine.suite.ids)

    def before(self, order: Sequence[str]) -> OrderResult:
        key = tuple(order)
        if key not in self._before:
            self._before[key] = self.engine.run(list(order))
            self._note(self._before[key])
        return self._before[key]

    def _note(self, result: OrderResult) -> None:
        if len(result.order) == len(self.original_order()):
            self._suite_walls.append(result.wall_seconds)

    def baseline_seconds(self) -> Optional[float]:
        """:meth:`suite_seconds`, running the unpatched original order first when none ran
        yet (verification needs it: the fork check's run of it is taken when offered);
        None when verification does not run the whole suite."""
        if not self.full_suite:
            return None
        if not self._suite_walls:
            self.before(self.original_order())
        return self.suite_seconds()

    def suite_seconds(self) -> Optional[float]:
        """Wall seconds of the unpatched suite in its original order, once it has run (the
        faster of its runs: the first also warms the engine up)."""
        return min(self._suite_walls) if self._suite_walls else None

    @property
    def settled(self) -> bool:
        """Whether the unpatched original order ran twice (:meth:`unstable` is known)."""
        return self._unstable is not None

    def unstable(self) -> frozenset[str]:
        """Tests of the original order whose outcome differs between two unpatched runs."""
        if self._unstable is None:
            order = self.original_order()
            first, second = self.before(order), self.engine.run(order)
            self._note(second)
            self._unstable = frozenset(
                a.test
                for a, b in zip(first.results, second.results)
                if a.outcome.is_failure != b.outcome.is_failure
            )
        return self._unstable

    def flipping(
        self, order: Sequence[str], after: OrderResult, target: str, changed: ChangedCode
    ) -> frozenset[str]:
        """:meth:`unstable`, run only when it can matter: the second unpatched run of the
        original order (a whole suite's time) is needed only when the patched run
        differs from the first, by a test now failing or one now passing (the patch's
        doing, or chance); when they agree, nothing is left to excuse."""
        if not self.settled and not self.exclusive:
            trial = Verification(ok=False)
            _compare(self.before(order), after, target, "", trial, self.nd_tests, changed)
            if not trial.problems and not trial.improved:
                return frozenset()
        return self.unstable()

    def same_suite(self, engine: Engine) -> bool:
        """Whether ``engine`` (on a patched copy) collects the tests of the unpatched
        suite; where only their order (a parametrize set iterated from a set) or volatile
        parametrize ids differ, it takes the suite's ids and order, which the orders
        checked name."""
        suite_order = list(self.engine.suite.ids)
        if list(engine.suite.ids) == suite_order:
            return True
        if not same_test_set(suite_order, engine.suite.ids):
            return False
        engine.adopt(self.engine.suite)
        return True

    @contextlib.contextmanager
    def engine_on(self, copy: Path, compared: Sequence[Sequence[str]] = ()) -> Iterator[Engine]:
        """An engine like ``self.engine`` (local, or on the same Dask cluster) for the
        patched ``copy``, its suite collected; closed after the block. When that
        collection fails while the unpatched project's test processes run (a suite that
        binds a fixed port at import, say), they are stopped (the next unpatched order
        starts them again) and the copy is collected once more; later copies then start
        only once they are stopped (:attr:`exclusive`), and the unpatched outcomes of the
        ``compared`` orders are run before (:meth:`before`), not beside, the copy's.
        The copy runs as the unpatched project does: in fresh processes once the fork
        runner's check sent ``self.engine`` there (a patch is never verified by a runner
        that disagreed with a fresh pytest on this project)."""
        config = copy_config(self.config, copy)
        if self.engine.runner == "subprocess":  # the fork runner is not trusted here
            config = dataclasses.replace(config, runner="subprocess")
        dask = self.engine if isinstance(self.engine, DaskEngine) else None
        local = dask is None

        def started() -> Engine:
            if local and self.exclusive:
                for order in compared:
                    self.before(order)
                if self.full_suite and self.original_order() in map(list, compared):
                    self.unstable()  # its second run cannot start beside the copy's
                self.engine.release()
            made = Engine(config) if dask is None else dask.on_copy(config)
            try:
                made.suite  # noqa: B018 (collects)
            except BaseException:
                made.close()
                raise
            return made

        try:
            engine = started()
        except CollectionError:
            if not local or self.exclusive or not self.engine.running:
                raise
            self.exclusive = True
            engine = started()
        with engine:
            yield engine

    def verify(
        self,
        changes: Changes,
        target: Target,
        *,
        orders_only: bool = False,
        also: Sequence[Target] = (),
        keep_going: bool = False,
    ) -> Verification:
        """Run ``target``'s orders (and the suite, unless ``orders_only``) on a patched
        copy; see the module doc. ``also``: more targets the same changes must meet, in
        the same copy (one copy and one engine for the set-ups of many tests);
        ``keep_going``: a target's test that still fails is noted (``still_failing``) and
        the other targets' orders run on."""
        self.verifications += 1
        out = Verification(ok=False)
        suite_order = self.original_order()
        checks: list[tuple[str, list[str], bool, str]] = [
            check
            for t in (target, *also)
            for check in (
                *(("failing order", o, True, t.test) for o in t.failing_orders),
                *(("passing order", o, True, t.test) for o in t.passing_orders),
            )
        ]
        if self.full_suite and not orders_only and not self.suite_in_set:
            checks.append(("the original order", suite_order, False, target.test))
            if self.exclusive:
                self.unstable()  # both unpatched runs before the copy's engine starts
        changed = changed_code(changes)
        with make_workdir("orderdep-fix-") as tmp:
            copy = copy_path(Path(tmp), self.config.project)
            copy_project(self.config.project, copy)
            write_changes(copy / self.engine.suite.id_root, changes)
            try:
                with self.engine_on(copy, [order for _, order, _, _ in checks]) as engine:
                    if not self.same_suite(engine):
                        out.problems.append("the patched project collects different tests")
                        return out
                    for where, order, must_pass, test in checks:
                        if must_pass and test in out.still_failing:
                            continue
                        after = engine.run(order)
                        out.orders_run += 1
                        if must_pass and after.outcome_of(test).is_failure:
                            out.problems.append(
                                f"{test} still {after.outcome_of(test).value} in its {where}"
                            )
                            if not keep_going:
                                return out
                            out.still_failing.append(test)
                            continue
                        ignore = self.nd_tests
                        if not must_pass:  # the original order: also what flips unpatched
                            ignore = ignore | self.flipping(order, after, test, changed)
                        seen = len(out.problems)
                        _compare(self.before(order), after, test, where, out, ignore, changed)
                        if len(out.problems) > seen:
                            return out
            except OutOfTime:
                raise  # the budget ended: not the patch's doing
            except OrderdepError as exc:
                out.problems.append(f"the patched project does not run: {exc}")
                return out
        out.ok = not out.problems
        return out
