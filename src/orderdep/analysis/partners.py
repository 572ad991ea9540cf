"""An OD test's partners by group testing: polluters, state-setters and cleaners.

Each search hands :func:`orderdep.core.groupsearch.group_search` a *set test* that runs
many candidates in one order before the OD test, and confirms every candidate it returns
with a fresh run of that candidate's own minimal order (``[x, test]``, or
``[*polluter, x, test]`` for a cleaner), so nothing is reported on the strength of a set.

* **Polluters** (victim fails after ``[x]``): a set shows it when ``[*set, victim]`` fails
  *or* its reverse ``[*reversed(set), victim]`` fails. One direction is not enough: a
  cleaner after the polluter hides it (``[p, c, victim]`` passes), but then the reverse
  puts the cleaner first. A polluter stays hidden only when cleaners of it sit on both
  sides of it in the set.
  So when a found polluter has a cleaner among the candidates (another polluter of the
  same state could sit between two of its cleaners in every set),
  :func:`hidden_polluters` asks every remaining candidate on its own: exact, at the cost
  of one-by-one search for that victim.
* **State-setters** (brittle passes after ``[x]``): ``[*set, brittle]`` passes. Nothing
  un-sets a state in the model (004 §2), so one direction is enough.
* **Cleaners** of polluter ``p`` (victim passes after ``[*p, x]``): ``[*p, *set, victim]``
  passes. Known polluters and polluter-group members are left out of the candidates: one
  after the cleaner would make the victim fail again (and a polluter is never a cleaner).

Every run goes through the classification's runner, which caches orders, so asking for
one partner first and for all of them later costs only the difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Protocol

from orderdep.core.groupsearch import GroupStats, group_search
from orderdep.core.outcomes import Outcome


class PrefixRunner(Protocol):
    """Runs ``[*prefix, test]`` for each prefix and returns the test's outcomes."""

    def outcomes(self, prefixes: Sequence[Sequence[str]], fresh: bool = False) -> list[Outcome]: ...

    def confirmations(self, prefixes: Sequence[Sequence[str]]) -> list[Outcome]:
        """A second, fresh run of each order (run once per order, then remembered)."""
        ...


def _confirm(runner: PrefixRunner, hits: Sequence[Sequence[str]], want_failure: bool) -> list[bool]:
    again = runner.confirmations(hits)
    return [o.is_failure if want_failure else o.is_pass for o in again]


def find_polluters(
    runner: PrefixRunner,
    candidates: Sequence[str],
    *,
    limit: Optional[int] = None,
    stats: Optional[GroupStats] = None,
) -> list[str]:
    """Confirmed single polluters among ``candidates`` (the first ``limit`` found)."""

    def shows(sets: list[list[str]]) -> list[bool]:
        out = [o.is_failure for o in runner.outcomes(sets)]
        again = [i for i, (s, hit) in enumerate(zip(sets, out)) if not hit and len(s) > 1]
        if again:
            reverse = runner.outcomes([list(reversed(sets[i])) for i in again])
            for i, o in zip(again, reverse):
                out[i] = o.is_failure
        return out

    hits = group_search(list(candidates), shows, limit=limit, stats=stats)
    ok = _confirm(runner, [[h] for h in hits], want_failure=True)
    return [h for h, good in zip(hits, ok) if good]


# Rounds of "cleaners of the polluters found, then polluters among the rest".
CLEANER_ROUNDS = 3
# Cleaners beyond this share of the candidates: one order per candidate is cheaper.
DENSE = 0.125


def one_by_one(runner: PrefixRunner, candidates: Sequence[str]) -> list[str]:
    """Confirmed single polluters by one pair ``[t, victim]`` per candidate (cached pairs
    are not run again)."""
    first = runner.outcomes([[t] for t in candidates])
    hits = [t for t, o in zip(candidates, first) if o.is_failure]
    ok = _confirm(runner, [[h] for h in hits], want_failure=True)
    return [h for h, good in zip(hits, ok) if good]


def hidden_polluters(
    runner: PrefixRunner, candidates: Sequence[str], found: Sequence[str]
) -> Optional[list[str]]:
    """Polluters group testing may have missed: None when no found polluter has a
    cleaner among the candidates (nothing can be hidden), else every single polluter.

    A polluter hides from a set (in both directions) only behind cleaners on both of its
    sides. So the cleaners of the polluters found are found too (group testing), taken
    out of the candidates, and the rest searched again, until no new cleaner turns up
    (at most :data:`CLEANER_ROUNDS` rounds); a cleaner is then asked on its own whether
    it is a polluter as well. Where cleaners are many (more than a :data:`DENSE` share
    of the candidates, e.g. a reset fixture every test of a module uses), or rounds keep
    finding new ones, every candidate is asked on its own instead (:func:`one_by_one`).
    """
    order = {t: i for i, t in enumerate(candidates)}
    polluters = list(found)
    cleaners: set[str] = set()
    dense = max(1, int(len(candidates) * DENSE))
    for _ in range(CLEANER_ROUNDS):
        taken = cleaners | set(polluters)
        pool = [t for t in candidates if t not in taken]
        new: set[str] = set()
        for p in polluters:  # cleaners of one state are usually shared: ask for new ones
            fresh = [t for t in pool if t not in new]
            new.update(find_cleaners(runner, [p], fresh, limit=dense + 1))
        if not new:
            break
        cleaners |= new
        if len(cleaners) > dense:
            return one_by_one(runner, candidates)
        rest = [t for t in pool if t not in cleaners]
        polluters += find_polluters(runner, rest)
    else:
        return one_by_one(runner, candidates)
    if not cleaners:
        return None
    polluters += one_by_one(runner, sorted(cleaners, key=order.__getitem__))
    return sorted(set(polluters) & set(order), key=order.__getitem__)


def find_state_setters(
    runner: PrefixRunner,
    candidates: Sequence[str],
    *,
    limit: Optional[int] = None,
    stats: Optional[GroupStats] = None,
) -> list[str]:
    """Confirmed single state-setters among ``candidates`` (the first ``limit`` found)."""

    def shows(sets: list[list[str]]) -> list[bool]:
        return [o.is_pass for o in runner.outcomes(sets)]

    hits = group_search(list(candidates), shows, limit=limit, stats=stats)
    ok = _confirm(runner, [[h] for h in hits], want_failure=False)
    return [h for h, good in zip(hits, ok) if good]


def find_cleaners(
    runner: PrefixRunner,
    polluter: Sequence[str],
    candidates: Sequence[str],
    *,
    limit: Optional[int] = None,
    stats: Optional[GroupStats] = None,
) -> list[str]:
    """Confirmed cleaners of ``polluter`` (a test or a group) among ``candidates``
    (the caller leaves out known polluters); the first ``limit`` found."""
    head = list(polluter)
    pool = [c for c in candidates if c not in set(head)]

    def shows(sets: list[list[str]]) -> list[bool]:
        return [o.is_pass for o in runner.outcomes([[*head, *s] for s in sets])]

    hits = group_search(pool, shows, limit=limit, stats=stats)
    ok = _confirm(runner, [[*head, h] for h in hits], want_failure=False)
    return [h for h, good in zip(hits, ok) if good]


__all__ = [
    "PrefixRunner",
    "find_cleaners",
    "find_polluters",
    "find_state_setters",
    "hidden_polluters",
    "one_by_one",
]
