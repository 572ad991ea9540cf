"""Checking an order against test dependencies, and what an enhancement changed.

:func:`check_order` lists the dependencies an order breaks (:class:`Violation`);
:func:`enhance_stats` compares an unenhanced order with the order
:mod:`orderdep.core.enhance` made of it ("added 2 tests, moved 3 to satisfy 5
dependencies").
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from orderdep.core.depsfile import Dependency, DepKind, negative_constraints, positive_alternatives
from orderdep.core.enhance import require_distinct


@dataclass(frozen=True)
class Violation:
    """A dependency an order breaks.

    Positive: ``test`` ran but none of its ``alternatives`` (each a dependee or a group,
    in order) ran wholly before it. Negative: ``test`` ran after every member of the
    single polluter group in ``alternatives``.
    """

    test: str
    kind: DepKind
    alternatives: tuple[tuple[str, ...], ...]

    def __str__(self) -> str:
        shown = " or ".join(repr(a[0]) if len(a) == 1 else repr(list(a)) for a in self.alternatives)
        if self.kind == "positive":
            return f"{self.test!r} runs without {shown} before it"
        return f"{self.test!r} runs after its polluter {shown}"


def check_order(order: Sequence[str], deps: Sequence[Dependency]) -> list[Violation]:
    """Every dependency of a test in ``order`` that ``order`` breaks, in order position.

    Only tests in ``order`` are checked; a positive dependency whose dependee is absent
    from ``order`` is broken, a negative one whose polluter is absent is not.
    """
    require_distinct(order, "the order to check")
    position = {t: i for i, t in enumerate(order)}

    def ran_before(members: tuple[str, ...], t: str) -> bool:
        # every member ran before t, in the given order
        at = [position.get(m, len(order)) for m in members]
        return at[-1] < position[t] and all(a < b for a, b in zip(at, at[1:]))

    out: list[Violation] = []
    alternatives = positive_alternatives(deps)
    negatives = negative_constraints(deps)
    for t in order:
        alts = alternatives.get(t)
        if alts and not any(ran_before(a, t) for a in alts):
            out.append(Violation(t, "positive", tuple(alts)))
        for group in negatives.get(t, ()):
            if all(position.get(m, len(order)) < position[t] for m in group):
                out.append(Violation(t, "negative", (group,)))
    return out


def _requirements(order: Sequence[str], deps: Sequence[Dependency]) -> int:
    present = set(order)
    count = sum(1 for t in positive_alternatives(deps) if t in present)
    for t, groups in negative_constraints(deps).items():
        if t in present:
            count += sum(1 for g in groups if all(m in present for m in g))
    return count


def _longest_increasing(values: Sequence[int]) -> set[int]:
    """Indices of one longest strictly increasing subsequence (patience sorting)."""
    tails: list[int] = []  # values
    tail_idx: list[int] = []  # index of the value ending each tail
    parent = [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_idx.append(i)
        else:
            tails[k] = v
            tail_idx[k] = i
        parent[i] = tail_idx[k - 1] if k > 0 else -1
    keep: set[int] = set()
    i = tail_idx[-1] if tail_idx else -1
    while i >= 0:
        keep.add(i)
        i = parent[i]
    return keep


@dataclass(frozen=True)
class EnhanceStats:
    """What an enhancement changed: for "added 2 tests, moved 3 to satisfy 5 dependencies".

    ``added``: tests the enhanced order runs that the unenhanced did not. ``moved``: a
    fewest set of unenhanced tests whose moving turns the unenhanced order into the
    enhanced one (the rest keep their relative order). ``fixed``: dependencies the
    unenhanced order broke and the enhanced one keeps. ``satisfied``: dependencies the
    enhanced order keeps. ``unsatisfied``: what it still breaks (dependees that are not
    in the suite).
    """

    added: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    fixed: int = 0
    satisfied: int = 0
    unsatisfied: tuple[Violation, ...] = ()

    def __add__(self, other: EnhanceStats) -> EnhanceStats:
        return EnhanceStats(
            self.added + other.added,
            self.moved + other.moved,
            self.fixed + other.fixed,
            self.satisfied + other.satisfied,
            self.unsatisfied + other.unsatisfied,
        )

    def summary(self) -> str:
        """One line, e.g. "added 2 tests, moved 3 to satisfy 5 dependencies"."""
        tests = "test" if len(self.added) == 1 else "tests"
        dependencies = "dependency" if self.fixed == 1 else "dependencies"
        text = (
            f"added {len(self.added)} {tests}, moved {len(self.moved)} "
            f"to satisfy {self.fixed} {dependencies}"
        )
        if self.unsatisfied:
            text += (
                f"; {len(self.unsatisfied)} cannot be satisfied: "
                + "; ".join(str(v) for v in self.unsatisfied[:3])
                + (" ..." if len(self.unsatisfied) > 3 else "")
            )
        return text


def enhance_stats(
    unenhanced: Sequence[str], enhanced: Sequence[str], deps: Sequence[Dependency]
) -> EnhanceStats:
    """Compare an unenhanced order with its enhanced version (see :class:`EnhanceStats`)."""
    before = set(unenhanced)
    u_pos = {t: i for i, t in enumerate(unenhanced)}
    kept = [t for t in enhanced if t in before]
    stay = _longest_increasing([u_pos[t] for t in kept])
    broken_before = {(v.test, v.kind, v.alternatives) for v in check_order(unenhanced, deps)}
    after = check_order(enhanced, deps)
    broken_after = {(v.test, v.kind, v.alternatives) for v in after}
    return EnhanceStats(
        added=tuple(t for t in enhanced if t not in before),
        moved=tuple(t for i, t in enumerate(kept) if i not in stay),
        fixed=len(broken_before - broken_after),
        satisfied=_requirements(enhanced, deps) - len(after),
        unsatisfied=tuple(after),
    )
