"""``why`` from what is already known: a test's polluters or state-setters named by a
report (an earlier ``detect`` or ``classify``) or by an earlier ``why``, checked with one
fresh run of the minimal failing order instead of a search.

A known cause answers a failing order when it fits it: a victim's polluter (group) ran
before the test; a brittle's state-setter (set) did not all run before it. The check runs
the minimal failing order (``polluter... TEST``, or ``TEST`` alone for a brittle) once, in
a fresh pytest process; only when the test fails there is the cause given, and the answer
says where it came from. Otherwise the search runs as usual.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol

from orderdep.analysis.why.search import WhyResult
from orderdep.core.odmodel import group_key
from orderdep.core.outcomes import OrderResult, Outcome

# What earlier ``why`` runs found, test id -> {"verdict", "culprits"}, under the project.
KNOWN_FILE = Path(".orderdep") / "why-known.json"


class OrderRunner(Protocol):
    runner: str

    def run(self, order: Sequence[str]) -> OrderResult: ...


@dataclass(frozen=True)
class KnownCause:
    verdict: str  # victim | brittle
    culprits: tuple[str, ...]  # a polluter (group) or a state-setter (set)
    source: str  # where it is known from, as the answer says it
    cleaners: tuple[str, ...] = ()  # of a victim's polluter (group), when known

    def fits(self, given: Sequence[str]) -> bool:
        """Whether it explains ``given`` (a failing order ending with the test): a
        victim's polluters all ran before it and no known cleaner of theirs after them."""
        before = list(given[:-1])
        inside = all(c in before for c in self.culprits)
        if self.verdict != "victim":
            return not inside
        if not inside:
            return False
        last = max(len(before) - 1 - before[::-1].index(c) for c in self.culprits)
        return not set(self.cleaners) & set(before[last + 1 :])

    def orders(self, test: str) -> tuple[list[str], list[str]]:
        """(minimal failing order, minimal passing order)."""
        group = list(self.culprits)
        if self.verdict == "victim":
            return [*group, test], [test]
        return [test], [*group, test]


def read_json(path: Path) -> Optional[dict[str, Any]]:
    """The JSON object in ``path``; None when it is missing or not one (knowledge is
    optional: a broken file only means a search)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def known_causes(
    test: str, report: Optional[Mapping[str, Any]], record: Optional[Mapping[str, Any]],
    report_name: str = "the report",
) -> list[KnownCause]:  # fmt: skip
    """The causes of ``test`` the report's finding and earlier ``why`` runs name (single
    partners first, then groups)."""
    out: list[KnownCause] = []
    earlier = (record or {}).get(test)
    if isinstance(earlier, dict) and earlier.get("verdict") in ("victim", "brittle"):
        culprits = tuple(str(c) for c in earlier.get("culprits") or [])
        if culprits:
            out.append(KnownCause(earlier["verdict"], culprits, "an earlier `orderdep why`"))
    for finding in (report or {}).get("od_tests") or []:
        if not isinstance(finding, dict) or finding.get("test") != test:
            continue
        kind = finding.get("kind")
        if kind not in ("victim", "brittle"):
            continue
        one, many = ("polluters", "polluter_groups") if kind == "victim" else (
            "state_setters", "state_setter_groups")  # fmt: skip
        groups = [[p] for p in finding.get(one) or []] + list(finding.get(many) or [])
        cleaners = finding.get("cleaners") or {}
        out += [
            KnownCause(kind, tuple(g), report_name, tuple(cleaners.get(group_key(g)) or ()))
            for g in groups
            if g
        ]
    return out


def check_known(
    runner: OrderRunner, test: str, given: Sequence[str], causes: Sequence[KnownCause]
) -> Optional[WhyResult]:
    """The first known cause that fits ``given`` and whose minimal failing order fails
    ``test`` in one fresh run; None when none does (the search then runs)."""
    for cause in causes:
        if not cause.fits(given):
            continue
        failing, passing = cause.orders(test)
        result = runner.run(failing)
        try:
            outcome = result.outcome_of(test)
        except KeyError:
            outcome = Outcome.NOT_RUN
        note = (f"known from {cause.source}; checked with one run of the minimal failing "
                f"order ({test} {outcome})")  # fmt: skip
        if outcome.is_failure:
            return WhyResult(
                test, list(given), cause.verdict, runner.runner, list(cause.culprits),
                failing_order=failing, passing_order=passing, notes=[note], orders_run=1,
            )  # fmt: skip
        return None  # what was known no longer holds: search afresh
    return None


def remember(path: Path, result: WhyResult) -> None:
    """Keep what ``why`` found for ``result.test``, for the next failure of it."""
    if not result.found or not result.minimal:
        return
    data = read_json(path) or {}
    data[result.test] = {"verdict": result.verdict, "culprits": list(result.culprits)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only project: the answer stands, the next why searches again
