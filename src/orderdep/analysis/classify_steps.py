"""The steps of classifying one OD test, run phase by phase by :mod:`orderdep.analysis.classify`.

Each step fills the finding in place through a :class:`Runner` (orders ending with the
test, cached by order); :func:`~.classify_marks.mark_unfinished` records what a stopped run left undone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from orderdep.analysis.partners import (
    find_cleaners,
    find_polluters,
    find_state_setters,
    hidden_polluters,
)
from orderdep.core.ddmin import DDMinPreconditionError
from orderdep.core.odmodel import Kind, fails_at
from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.prefix_search import GROUP_CAP, TooManyNeeded, minimal_prefix_subset
from orderdep.core.report import FLAKE_RATE_KEYS, ODFinding
from orderdep.engine.executor import Executor

NOTES_KEY = "classify_notes"
# How many cleaners per polluter were looked for ("one per polluter" by default, "all").
CLEANERS_KEY = "cleaners_searched"
# Steps of one finding, in the order the phases run them.
PHASES: tuple[str, ...] = ("kind", "partner", "partners", "cleaners", "flake-rate")
Say = Callable[..., None]  # say(step, message, orders_left=None)


@dataclass
class Counts:
    orders_run: int = 0
    test_executions: int = 0


@dataclass
class Known:
    """Outcomes per test already asked for, kept across the classifications of one
    command (each OD test's first phases as soon as it is confirmed, the rest later)."""

    cache: dict[str, dict[tuple[str, ...], Outcome]] = field(default_factory=dict)
    confirmed: dict[str, dict[tuple[str, ...], Outcome]] = field(default_factory=dict)
    #: Per test, what confirmation saw of the orders its finding names (ending with the
    #: test; True: it failed), in the runs it counted: the classification's own evidence
    #: (see :func:`kind_step`).
    seen: dict[str, dict[tuple[str, ...], list[bool]]] = field(default_factory=dict)


@dataclass
class Runner:
    """Runs orders that end with ``test`` and reports its outcome; caches by order."""

    executor: Executor
    test: str
    counts: Counts
    cache: dict[tuple[str, ...], Outcome] = field(default_factory=dict)
    confirmed: dict[tuple[str, ...], Outcome] = field(default_factory=dict)
    on_order: Optional[Callable[[], None]] = None
    seen: dict[tuple[str, ...], list[bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # an order confirmation saw with one outcome every time is confirmed already
        for order, failures in self.seen.items():
            if failures and len(set(failures)) == 1:
                outcome = Outcome.FAILED if failures[0] else Outcome.PASSED
                self.cache.setdefault(order, outcome)
                self.confirmed.setdefault(order, outcome)

    def outcomes(self, prefixes: Sequence[Sequence[str]], fresh: bool = False) -> list[Outcome]:
        """The test's outcome after each prefix, from one ``run_many`` call.

        Cached orders are not run again unless ``fresh`` (confirmations, alone runs).
        """
        orders = [(*p, self.test) for p in prefixes]
        todo = orders if fresh else list(dict.fromkeys(o for o in orders if o not in self.cache))

        def done(_i: int, result: OrderResult) -> None:
            self.counts.orders_run += 1
            self.counts.test_executions += len(result.order)
            if self.on_order is not None:
                self.on_order()

        results = self.executor.run_many([list(o) for o in todo], on_result=done) if todo else []
        got = [self._outcome(r) for r in results]
        for order, outcome in zip(todo, got):
            self.cache.setdefault(order, outcome)
        return got if fresh else [self.cache[o] for o in orders]

    def confirmations(self, prefixes: Sequence[Sequence[str]]) -> list[Outcome]:
        """A fresh run of each order after ``prefixes``, once per order (then cached)."""
        keys = [(*p, self.test) for p in prefixes]
        todo = list(dict.fromkeys(k for k in keys if k not in self.confirmed))
        got = self.outcomes([k[:-1] for k in todo], fresh=True)
        self.confirmed.update(zip(todo, got))
        return [self.confirmed[k] for k in keys]

    def _outcome(self, result: OrderResult) -> Outcome:
        try:
            return result.outcome_of(self.test)
        except KeyError:  # the order was cut short before the test
            return Outcome.NOT_RUN

    def failed(self, prefix: Sequence[str]) -> bool:
        return self.outcomes([prefix])[0].is_failure

    def passed(self, prefix: Sequence[str]) -> bool:
        return self.outcomes([prefix])[0].is_pass


@dataclass
class Item:
    """One OD test being classified: its finding, runner and the phases done."""

    finding: ODFinding
    index: int
    runner: Runner
    others: list[str]
    done: set[str] = field(default_factory=set)
    nd: bool = False
    # the finding as it came in: kept when the work stops before its kind is known again
    before: Optional[ODFinding] = None


def _log2(n: int) -> int:
    return max(1, math.ceil(math.log2(max(2, n))))


def kind_step(item: Item, alone_runs: int, say: Say) -> None:
    """Steps 1-2: victim, brittle or ND (sets ``item.nd``)."""
    finding, runner = item.finding, item.runner
    test = finding.test
    reset(finding)
    # the runs alone confirmation saw count among the alone_runs (as it counted them)
    earlier = [not failed for failed in runner.seen.get((test,), [])][:alone_runs]
    more = alone_runs - len(earlier)
    also = f", after {len(earlier)} seen while confirming it" if earlier else ""
    say("kind", f"running {test} alone {more} times{also}", more + 1)
    alone = earlier + [o.is_pass for o in runner.outcomes([[]] * more, fresh=True)]
    passes = sum(alone)
    if 0 < passes < alone_runs:
        item.nd = True
        return
    kind: Kind = "victim" if passes == alone_runs else "brittle"
    order = finding.failing_order if kind == "victim" else finding.passing_order
    prefix = prefix_of(order, test)
    wanted = kind == "victim"  # the recorded order fails a victim, passes a brittle
    shown = runner.seen.get((*prefix, test), []) if prefix is not None else []
    if prefix is not None and not (shown and all(f == wanted for f in shown)):
        say(
            "precondition",
            f"re-running the {'failing' if kind == 'victim' else 'passing'} order",
            1,
        )
        got = runner.outcomes([prefix], fresh=True)[0]
        if not (got.is_failure if kind == "victim" else got.is_pass):
            item.nd = True
            return
    finding.kind = kind


def partners_step(item: Item, say: Say, limit: Optional[int]) -> None:
    """Step 3: single polluters / state-setters (``limit``: the first ones), then groups."""
    finding, runner, others = item.finding, item.runner, item.others
    victim = finding.kind == "victim"
    what = "polluters" if victim else "state-setters"
    how_many = "one of its" if limit else "all its"
    known = finding.polluters if victim else finding.state_setters
    find = find_polluters if victim else find_state_setters
    found: list[str] = []
    # the confirmed (shortened) failing or passing order names the few tests that made
    # it: when one partner is enough, those are tried before every other test
    shown = prefix_of(finding.failing_order if victim else finding.passing_order, finding.test)
    near = [t for t in others if t in set(shown or ())]
    if limit is not None and 0 < len(near) < len(others):
        say(what, f"trying the {len(near)} test(s) of its confirmed order first", 2)
        found = find(runner, near, limit=limit)
        if not found and len(near) > 1 and _group_in_confirmed(item, say):
            return  # the confirmed order's tests together: one partner, found cheaply
    if not found:
        est = 2 * _log2(len(others)) * max(1, len(known) if limit is None else 1)
        say(what, f"group testing {len(others)} candidates for {how_many} {what}", est)
        found = find(runner, others, limit=limit)
    merged = [t for t in others if t in set(found) | set(known)]
    if victim:
        finding.polluters = merged
    else:
        finding.state_setters = merged
    if victim and not merged:
        # Cleaners around every polluter can hide it from every set: the failing order
        # still shows one (iFixFlakies' Minimizer over its prefix, 003 §2).
        _polluter_group(item, say)
    if limit is not None:
        return
    if victim:
        _polluter_group(item, say)
        say("polluters", "checking whether cleaners could hide other polluters",
            4 * _log2(len(others)) * len(finding.polluters))  # fmt: skip
        hidden = hidden_polluters(runner, others, finding.polluters)
        if hidden is not None:
            finding.polluters = [t for t in others if t in set(hidden) | set(finding.polluters)]
    else:
        _setter_group(item, say)
    if not finding.to_spec().related_tests() - {finding.test}:
        _note(finding, f"no {'polluter' if victim else 'state-setter'} found")


def _group_in_confirmed(item: Item, say: Say) -> bool:
    """A group of the few tests of the confirmed (shortened) order, when none alone is a
    partner: whether one was found (a group, or a single one group testing missed)."""
    finding = item.finding
    victim = finding.kind == "victim"
    before = (finding.polluters, finding.polluter_groups) if victim else (
        finding.state_setters, finding.state_setter_groups)  # fmt: skip
    (_polluter_group if victim else _setter_group)(item, say)
    after = (finding.polluters, finding.polluter_groups) if victim else (
        finding.state_setters, finding.state_setter_groups)  # fmt: skip
    return after != before and any(after)


def _polluter_group(item: Item, say: Say) -> None:
    finding, runner = item.finding, item.runner
    prefix = prefix_of(finding.failing_order, finding.test)
    if prefix is None:
        return
    explained = fails_at(finding.to_spec(), prefix)
    found = set(finding.polluters)
    items = [t for t in prefix if t not in found]
    say("polluter-group", f"checking the failing order without its {len(found)} polluter(s)", 1)
    if not items or not runner.failed(items):
        if not explained:
            _note(finding, "the failing order fails only with its single polluters; no group found")
        return
    if finding.needs_many_tests_in("failing"):  # confirmation's search stopped at the cap
        return
    # No single polluter explains the failing order: look for a polluter group in it.
    say("polluter-group", f"group testing a prefix of {len(items)} tests",
        2 * _log2(len(items)) * 2)  # fmt: skip
    group = _group(finding, items, runner.failed, "failing")
    if group is None:
        return
    if not runner.confirmations([group])[0].is_failure:
        _note(finding, f"the minimal failing sequence {group!r} did not reproduce")
    elif len(group) == 1:  # a single polluter group testing did not see (cleaners around it)
        finding.polluters = [t for t in item.others if t in {*finding.polluters, *group}]
    elif group not in finding.polluter_groups:
        finding.polluter_groups = [group]


def _setter_group(item: Item, say: Say) -> None:
    finding, runner = item.finding, item.runner
    prefix = prefix_of(finding.passing_order, finding.test)
    if prefix is None or not fails_at(finding.to_spec(), prefix):
        return
    if finding.needs_many_tests_in("passing"):  # confirmation's search stopped at the cap
        return
    # No single state-setter ran before the brittle in its passing order: find the group.
    say("state-setter-group", f"group testing a prefix of {len(prefix)} tests",
        2 * _log2(len(prefix)) * 2)  # fmt: skip
    group = _group(finding, prefix, runner.passed, "passing")
    if group is None:
        return
    if not runner.confirmations([group])[0].is_pass:
        _note(finding, f"the minimal passing sequence {group!r} did not reproduce")
    elif len(group) == 1:  # a single state-setter group testing did not see (others undo it)
        finding.state_setters = [t for t in item.others if t in {*finding.state_setters, *group}]
    elif group not in finding.state_setter_groups:
        finding.state_setter_groups = [group]


def _group(
    finding: ODFinding, items: list[str], shows: Callable[[list[str]], bool], which: str
) -> Optional[list[str]]:
    """A 1-minimal group of ``items`` whose order still ``shows`` the outcome; None (with a
    note) when more than :data:`GROUP_CAP` tests are needed together or the answers
    changed while searching."""
    try:
        return minimal_prefix_subset(items, shows, cap=GROUP_CAP)
    except TooManyNeeded as many:
        finding.say_needs_many_tests(
            which,
            f"the {which} order needs more than {many.cap} of its {len(items)} tests together "
            f"(such as a shared random generator's state): no group reported",
        )
    except DDMinPreconditionError:
        _note(finding, f"the outcome changed while searching the {which} order: no group reported")
    return None


def cleaners_step(item: Item, say: Say, all_cleaners: bool) -> None:
    """Step 4: cleaners of every polluter and polluter group (one each unless all)."""
    finding = item.finding
    if finding.kind != "victim":
        return
    finding.extras[CLEANERS_KEY] = "all" if all_cleaners else "one per polluter"
    spec = finding.to_spec()
    # A known polluter (or group member) after a cleaner would make the set fail again.
    polluters = set(finding.polluters).union(*finding.polluter_groups)
    pool = [t for t in item.others if t not in polluters]
    keys = spec.polluter_keys()
    for n, (key, members) in enumerate(keys):
        if key in finding.cleaners:
            continue
        left = (len(keys) - n) * 2 * _log2(len(pool)) * (1 if not all_cleaners else 2)
        say("cleaners", f"group testing {len(pool)} candidates for cleaners of {key}", left)
        finding.cleaners[key] = find_cleaners(
            item.runner, members, pool, limit=None if all_cleaners else 1
        )


def verify(finding: ODFinding) -> None:
    """The model built must predict the recorded orders (else keep a note)."""
    spec = finding.to_spec()
    for order, should_fail, name in (
        (finding.failing_order, True, "failing"),
        (finding.passing_order, False, "passing"),
    ):
        prefix = prefix_of(order, finding.test)
        if prefix is not None and fails_at(spec, prefix) != should_fail:
            _note(
                finding,
                f"the found {finding.kind} relations do not explain the recorded {name} order",
            )


def prefix_of(order: Sequence[str], test: str) -> Optional[list[str]]:
    """The tests before the last occurrence of ``test`` in ``order`` (None if absent)."""
    positions = [i for i, t in enumerate(order) if t == test]
    return list(order[: positions[-1]]) if positions else None


def reset(finding: ODFinding) -> None:
    finding.polluters, finding.polluter_groups, finding.cleaners = [], [], {}
    finding.state_setters, finding.state_setter_groups = [], []
    finding.flake_rate = dict.fromkeys(FLAKE_RATE_KEYS)
    finding.extras.pop(NOTES_KEY, None)
    finding.extras.pop(CLEANERS_KEY, None)


def _note(finding: ODFinding, message: str) -> None:
    notes = finding.extras.setdefault(NOTES_KEY, [])
    if message not in notes:
        notes.append(message)


def summary(finding: ODFinding) -> str:
    if finding.kind == "victim":
        return (
            f"{finding.test} is a victim: {len(finding.polluters)} polluter(s), "
            f"{len(finding.polluter_groups)} polluter group(s)"
        )
    return (
        f"{finding.test} is a brittle: {len(finding.state_setters)} state-setter(s), "
        f"{len(finding.state_setter_groups)} state-setter group(s)"
    )


__all__ = [
    "CLEANERS_KEY",
    "NOTES_KEY",
    "PHASES",
    "Counts",
    "Item",
    "Known",
    "Runner",
    "cleaners_step",
    "kind_step",
    "partners_step",
    "prefix_of",
    "reset",
    "summary",
    "verify",
]
