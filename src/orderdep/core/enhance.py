"""Dependent-test-aware orders: ``enhanceOrder``/``addTest`` of paper 002 (§3.2, Figure 2).

A traditional regression-testing algorithm (prioritisation, selection, parallelisation)
produces an *unenhanced* order T_u: a permutation of a subset of the original order
T_orig. :func:`enhance_order` turns it into an order T_e that satisfies the test
dependencies (:class:`orderdep.core.depsfile.Dependency`) while perturbing T_u as
little as Figure 2 does:

* Line 4: T_a, the transitive positive dependees of T_u's tests, taken from T_orig
  (``all_tests``). These are the tests selection or parallelisation left out but that
  T_u's brittles need.
* Lines 5-8: walk T_u in order and ``addTest`` each test not yet placed.
* Lines 10-16, ``addTest(t)``: B = t's positive dependees, plus the victims whose polluter
  is t (only those in T_u or T_a: a victim nobody asked for is not pulled in). Place B
  first, recursively: B ∩ T_u in T_u order, then B \\ T_u in T_orig order. Then append t.

Tests that no dependency involves therefore keep their T_u relative order, and an
order that already satisfies every dependency comes back unchanged.

The dependencies file's semantics (see :mod:`orderdep.core.depsfile`) refine Figure 2:

* **Positive alternatives.** A brittle needs *one* of its state-setters (or one whole
  state-setter group, in group order). Per test we choose one alternative, preferring
  one already satisfied by T_u (all members before the test), then one whose members are
  all in T_u, then the first whose members all exist in T_orig. The chosen members are the
  test's positive dependees; a group's order is kept by also making each member depend
  on the previous one. A test none of whose alternatives exists in T_orig (a deleted
  state-setter) cannot be helped; like the paper (§4.1) we skip it, and
  :func:`orderdep.core.order_check.enhance_stats` reports it as unsatisfied.
* **Negative groups.** A victim fails only after *every* member of a polluter group.
  ``addTest(t)`` places a victim before ``t`` when ``t`` would complete such a group, which
  for a single polluter is exactly Figure 2's rule. Whether ``t`` completes a group is
  re-checked after B is placed, because placing B may have placed the other members.

Conflicts. Figure 2 assumes linearisable dependencies and would recurse forever on a
cycle. Here every test being placed is marked in progress; meeting it again means a
cycle of "must run before" requirements (a positive cycle, a brittle whose state-setter
is also its polluter, two groups demanding opposite member orders, ...), and
:class:`DependencyConflictError` names the cycle. Because alternatives are chosen up
front and a victim goes before the member that completes its polluter group, a conflict
can in rare cases be reported although another choice would have avoided it.

The algorithm is iterative (an explicit stack instead of Figure 2's recursion) so long
dependency chains cannot exhaust Python's recursion limit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from orderdep.core.depsfile import (
    Dependency,
    negative_constraints,
    positive_alternatives,
)
from orderdep.errors import UsageError


class DependencyConflictError(UsageError):
    """The dependencies demand a cycle of "must run before"; no order satisfies them."""


# --- planning: which tests, which requirements -------------------------------------------


@dataclass
class DependencyPlan:
    """What Figure 2 works with for one unenhanced order.

    ``pool`` is T_u followed by T_a (in T_orig order). ``needs[t]`` lists the tests that
    must run before ``t`` (the chosen positive alternative and group-order predecessors),
    all in the pool. ``victims[p]`` lists ``(victim, polluter group)`` pairs whose group
    contains ``p`` and lies wholly in the pool, victim included. ``unavailable`` maps a
    test of the pool to its alternatives when none of them exists in T_orig.
    """

    unenhanced: list[str]
    added: list[str]
    original: list[str]
    needs: dict[str, list[str]] = field(default_factory=dict)
    victims: dict[str, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)
    unavailable: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._u_pos = {t: i for i, t in enumerate(self.unenhanced)}
        self._o_pos = {t: i for i, t in enumerate(self.original)}

    @property
    def pool(self) -> list[str]:
        return self.unenhanced + self.added

    def sort_key(self, test: str) -> tuple[int, int]:
        """Figure 2, line 11: tests of T_u in T_u order, then the others in T_orig order."""
        if test in self._u_pos:
            return (0, self._u_pos[test])
        return (1, self._o_pos[test])


def require_distinct(order: Sequence[str], what: str) -> None:
    dups = sorted(t for t, n in Counter(order).items() if n > 1)
    if dups:
        raise UsageError(f"{what} has duplicate test ids {dups!r}; give each test once")


def plan(
    order: Sequence[str],
    deps: Iterable[Dependency],
    all_tests: Sequence[str] | None = None,
) -> DependencyPlan:
    """Compute T_a and the requirements Figure 2 enforces for ``order`` (lines 2-4)."""
    unenhanced = list(order)
    require_distinct(unenhanced, "the order to enhance")
    original = unenhanced if all_tests is None else list(all_tests)
    require_distinct(original, "the original order (all_tests)")
    available = set(original)
    if all_tests is not None:
        unknown = [t for t in unenhanced if t not in available]
        if unknown:
            raise UsageError(
                f"the order to enhance has tests that are not in all_tests: {unknown[:5]!r}; "
                "pass the full original order as all_tests"
            )
    deps = list(deps)
    alternatives = positive_alternatives(deps)
    u_pos = {t: i for i, t in enumerate(unenhanced)}
    result = DependencyPlan(unenhanced=unenhanced, added=[], original=original)

    def rank(test: str, alt: tuple[str, ...]) -> int:
        if test in u_pos and all(m in u_pos for m in alt):
            positions = [u_pos[m] for m in alt]
            if positions == sorted(positions) and positions[-1] < u_pos[test]:
                return 0  # T_u already satisfies it: choosing it moves nothing
        if all(m in u_pos for m in alt):
            return 1  # nothing to add
        return 2

    in_pool = set(unenhanced)
    added: set[str] = set()
    work = list(reversed(unenhanced))
    done: set[str] = set()
    while work:
        test = work.pop()
        if test in done:
            continue
        done.add(test)
        alts = alternatives.get(test)
        if not alts:
            continue
        usable = [a for a in alts if all(m in available for m in a)]
        if not usable:
            result.unavailable[test] = list(alts)
            continue
        chosen = min(usable, key=lambda a: rank(test, a))  # min is stable: file order
        _need(result, test, chosen)
        for prev, member in zip(chosen, chosen[1:]):
            # Group members run in group order: each needs the one before it.
            _need(result, member, (prev,))
        for member in chosen:
            if member not in in_pool:
                in_pool.add(member)
                added.add(member)
            work.append(member)
    result.added = sorted(added, key=result.sort_key)
    for victim, groups in negative_constraints(deps).items():
        if victim not in in_pool:
            continue
        for group in groups:
            if all(m in in_pool for m in group):
                for member in group:
                    result.victims.setdefault(member, []).append((victim, group))
    return result


def _need(p: DependencyPlan, test: str, before: Iterable[str]) -> None:
    needs = p.needs.setdefault(test, [])
    for b in before:
        if b not in needs:
            needs.append(b)


# --- Figure 2 -----------------------------------------------------------------------------


@dataclass
class _Frame:
    test: str
    todo: list[tuple[str, str]]  # (test to place first, why), in Figure 2's line-11 order
    reason: str  # why this test must run before the frame below it (for conflict messages)
    index: int = 0


def _before(p: DependencyPlan, placed: set[str], t: str) -> list[tuple[str, str]]:
    """B of Figure 2, line 10, minus placed tests, sorted as in line 11, with reasons."""
    before: dict[str, str] = {}
    for dependee in p.needs.get(t, ()):
        if dependee not in placed:
            before.setdefault(dependee, f"{t!r} needs {dependee!r} to run before it")
    for victim, group in p.victims.get(t, ()):
        if victim not in placed and all(m in placed or m == t for m in group):
            what = f"polluter {t!r}" if len(group) == 1 else f"the last of polluters {group!r}"
            before.setdefault(victim, f"victim {victim!r} must run before {what}")
    return [(b, before[b]) for b in sorted(before, key=p.sort_key)]


def enhance_planned(p: DependencyPlan) -> list[str]:
    """Figure 2's lines 5-16 on a :func:`plan`."""
    enhanced: list[str] = []
    placed: set[str] = set()
    for start in p.unenhanced:  # line 5
        if start in placed:  # line 6
            continue
        stack = [_Frame(start, _before(p, placed, start), "")]
        in_progress = {start}
        while stack:  # addTest, lines 10-16, without recursion
            frame = stack[-1]
            if frame.index < len(frame.todo):  # lines 12-15
                b, why = frame.todo[frame.index]
                frame.index += 1
                if b in placed:  # line 13
                    continue
                if b in in_progress:
                    raise _conflict(stack, b, why)
                stack.append(_Frame(b, _before(p, placed, b), why))
                in_progress.add(b)
                continue
            # Placing B may have placed the other members of a polluter group of this
            # test: re-check which victims must now precede it.
            again = _before(p, placed, frame.test)
            if again:
                frame.todo, frame.index = again, 0
                continue
            enhanced.append(frame.test)  # line 16
            placed.add(frame.test)
            in_progress.discard(frame.test)
            stack.pop()
    return enhanced


def _conflict(stack: list[_Frame], again: str, why: str) -> DependencyConflictError:
    names = [f.test for f in stack]
    chain = [f.reason for f in stack[names.index(again) + 1 :]] + [why]
    return DependencyConflictError(
        "the dependencies cannot all be satisfied by any order; they require "
        + "; ".join(chain)
        + f", so {again!r} would have to run before itself. "
        "Remove or correct one of these dependencies (or re-run the detection)."
    )


def enhance_order(
    order: Sequence[str],
    deps: Sequence[Dependency],
    *,
    all_tests: Sequence[str] | None = None,
) -> list[str]:
    """The dependent-test-aware version of ``order`` (002 Figure 2, ``enhanceOrder``).

    ``all_tests`` is the original order T_orig; missing positive dependees of ``order``'s
    tests are taken from it. Without it, ``order`` is taken to be the whole suite and
    nothing is added. Raises :class:`DependencyConflictError` on unsatisfiable
    dependencies and :class:`UsageError` on duplicate or unknown ids.
    """
    return enhance_planned(plan(order, deps, all_tests))


def enhance_selection(
    selected: Sequence[str], deps: Sequence[Dependency], all_tests: Sequence[str]
) -> list[str]:
    """Enhanced test selection (002 §3.2): the selected tests plus the dependees they need.

    ``selected`` is the selection algorithm's order (S1-S6); the result keeps it and adds
    each missing transitive positive dependee, taken from the original order.
    """
    return enhance_order(selected, deps, all_tests=all_tests)


def enhance_parallel(
    machines: Sequence[Sequence[str]], deps: Sequence[Dependency], all_tests: Sequence[str]
) -> list[list[str]]:
    """Enhanced test parallelisation (002 §3.2, §5.1): each machine's order enhanced alone.

    Every machine gets the dependees its tests need, so a dependee may run on several
    machines; :func:`orderdep.core.parallelization.parallelize_groups` avoids that.
    """
    return [enhance_order(m, deps, all_tests=all_tests) for m in machines]
