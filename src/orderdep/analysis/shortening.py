"""Shortening a suspect's order to the few tests its outcome needs (see
:mod:`orderdep.analysis.confirm`, step 2).

:class:`Shortening` asks one order at a time (the test alone, then hints, then group
testing over the recorded prefix) and is told whether each showed the wanted outcome;
:func:`narrowed` makes the hints from the other orders the suspect ran in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Optional

from orderdep.core.prefix_search import GROUP_CAP, Steps, prefix_subset_steps
from orderdep.core.slow_tests import slowest_out
from orderdep.core.suite import split_node_id

#: The share of a prefix's time :func:`quick_prefix` aims at when leaving slow tests out.
QUICK_SHARE = 0.2
#: The slowest tests :func:`narrowed` tries one at a time before the test (more of them
#: are tried together).
SLOW_SINGLES = 3
#: ... when they take at least this many seconds together (below that, the start of an
#: order costs more than they do, and the quick prefix is the one hint they add).
SLOW_HINT_SECONDS = 1.0


@dataclass
class Shortening:
    """The search for a short order in which ``test`` fails (or passes), cut from a
    recorded one that was seen to show it.

    First ``test`` alone; then, when other orders already narrowed down which tests
    before it can matter (``hints``, smallest first, see :func:`narrowed`), just those
    before it; when none shows the wanted outcome either, group testing over the
    recorded prefix (:func:`~orderdep.core.prefix_search.prefix_subset_steps`): halves
    of it, later half first, then a binary search for each test the outcome needs. When
    a hint shows the outcome, the group testing runs over that hint only. A single
    polluter or state-setter among ``n`` tests costs about ``1.5 log2 n`` orders of
    ``n/2, n/4, ...`` tests, and the order kept is then two tests long, cheap to observe
    again. The result is always an order that was seen to show the outcome; when the
    answers contradict each other (an ND test), the recorded order itself is kept.

    The group testing finds at most ``cap`` needed tests one at a time: when the outcome
    needs more together (a shared random generator's state), ``stopped`` is set and the
    order kept is the last one seen to show it, more than ``cap`` tests before ``test``.
    """

    test: str
    want_fail: bool
    recorded: list[str]
    hints: list[list[str]] = field(default_factory=list)
    found: Optional[list[str]] = None
    cap: Optional[int] = GROUP_CAP
    stopped: bool = False
    _steps: Optional[Steps] = field(default=None, repr=False)
    _asked: Optional[list[int]] = field(default=None, repr=False)
    _phase: str = field(default="alone", repr=False)  # alone, hint, steps

    @property
    def which(self) -> str:
        """``"failing"`` or ``"passing"``: the order this search shortens."""
        return "failing" if self.want_fail else "passing"

    @property
    def prefix(self) -> list[str]:
        return self.recorded[: self.recorded.index(self.test)]

    def next_order(self) -> Optional[list[str]]:
        """The next order to look at (None: done, ``found`` is set)."""
        if self.found is not None:
            return None
        if self._phase == "alone":
            return [self.test]
        if self._phase == "hint":
            return [*self.hints[0], self.test]
        assert self._asked is not None
        return [*(self.prefix[i] for i in self._asked), self.test]

    def _start_steps(self) -> None:
        self._phase = "steps"
        self._steps = prefix_subset_steps(len(self.prefix), self.cap)
        self._asked = next(self._steps)

    def saw(self, wanted: bool) -> None:
        """Whether the order :meth:`next_order` gave showed the wanted outcome."""
        try:
            if self._phase == "alone":
                if wanted:  # alone already shows it
                    self.found = [self.test]
                    return
                self.hints = [h for h in self.hints if 0 < len(h) < len(self.prefix)]
                if self.hints:
                    self._phase = "hint"
                    return
                self._start_steps()
            elif self._phase == "hint":
                if wanted:  # group testing over this hint only
                    self.recorded = [*self.hints[0], self.test]
                    self.hints = []
                else:
                    self.hints.pop(0)
                if not self.hints:
                    self._start_steps()
            else:
                assert self._steps is not None
                self._asked = self._steps.send(wanted)
        except StopIteration as done:
            keep: Optional[list[int]] = done.value
            prefix = self.prefix
            self.stopped = keep is not None and self.cap is not None and len(keep) > self.cap
            self.found = (
                [*(prefix[i] for i in keep), self.test] if keep is not None else self.recorded
            )
            return


def stopped_note(s: Shortening) -> str:
    """What a :attr:`Shortening.stopped` search says in the finding
    (:meth:`~orderdep.core.report.ODFinding.say_needs_many_tests`)."""
    kept = len(s.found or s.recorded) - 1
    return (
        f"the {s.which} order needs more than {s.cap} of the tests before {s.test} together "
        f"(such as a shared random generator's state): shortening stopped at {kept} tests"
    )


def narrowed(
    test: str,
    recorded: Sequence[str],
    showing: Sequence[Sequence[str]],
    other: Sequence[Sequence[str]],
    durations: Optional[Mapping[str, float]] = None,
) -> list[list[str]]:
    """Subsequences of the tests before ``test`` in ``recorded`` worth trying first,
    smallest first: those every order ``showing`` the wanted outcome also ran before it
    and no ``other`` order (the opposite outcome) did; those of the first kind only; and
    the tests of its own module among each (a polluter or state-setter is most often
    there: for half the victims and nine brittles in ten of the IDoFT rows this
    repository's manifests confirm), a short order even when the search's orders could
    not narrow the prefix.

    With one polluter (or state-setter) and no cleaner, it is in the first; a cleaner
    that ran after it in an ``other`` order takes it out of the first but not the second.
    When groups make both wrong, neither shows the outcome and :class:`Shortening`
    searches the whole prefix as it would have.

    With the tests' ``durations`` (seconds), more: the prefix without its few slowest
    tests (:func:`quick_prefix`), and, when those take :data:`SLOW_HINT_SECONDS` or
    more, each of the :data:`SLOW_SINGLES` slowest of them alone (all of them together
    when there are more). When a handful of slow tests take
    most of a prefix's time, every halving of it costs most of a run: the same search
    over the prefix without them costs a part of one, and when the polluter is one of
    them (a test that serializes every time zone is both), an order of it and the test
    finds it. The hints then come cheapest first (their tests' seconds), as a wrong
    guess costs what its order takes; otherwise shortest first.
    """
    prefix = list(recorded[: list(recorded).index(test)])
    common = set(prefix)
    for order in showing:
        common.intersection_update(order[: list(order).index(test)])
    strict = set(common)
    for order in other:
        strict.difference_update(order[: list(order).index(test)])
    module = split_node_id(test)[0]
    same_module = {t for t in prefix if split_node_id(t)[0] == module}
    out: list[list[str]] = []
    for keep in (strict, common):
        hint = [t for t in prefix if t in keep]
        if len(hint) < len(prefix) and hint not in out:
            out.append(hint)
    for keep in (same_module & common, same_module):
        hint = [t for t in prefix if t in keep]
        if 0 < len(hint) < len(prefix) and hint not in out:
            out.append(hint)
    quick = quick_prefix(prefix, durations) if durations else None
    if quick is None or durations is None:
        return sorted(out, key=len)
    slow = sorted((t for t in prefix if t not in set(quick)), key=lambda t: -durations[t])
    guesses = [quick]
    if sum(durations[t] for t in slow) >= SLOW_HINT_SECONDS:
        guesses += [[t] for t in slow[:SLOW_SINGLES]]
        if len(slow) > SLOW_SINGLES:
            guesses.append([t for t in prefix if t in set(slow)])
    out.extend(hint for hint in guesses if hint not in out)
    if len(guesses) == 1:  # slow tests of a fast suite: an order's start costs more
        return sorted(out, key=len)
    return sorted(
        out, key=lambda hint: (sum(max(0.0, durations.get(t, 0.0)) for t in hint), len(hint))
    )


def quick_prefix(prefix: Sequence[str], durations: Mapping[str, float]) -> Optional[list[str]]:
    """``prefix`` without its slowest tests, when leaving out at most a tenth of them
    brings its time down by half or more (:func:`~orderdep.core.slow_tests.slowest_out`,
    aiming at :data:`QUICK_SHARE` of it); None otherwise."""
    timed = [(t, durations.get(t, 0.0)) for t in prefix]
    total = sum(max(0.0, d) for _, d in timed)
    split = slowest_out(timed, QUICK_SHARE * total)
    return None if split is None else split.kept
