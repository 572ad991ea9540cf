"""A baseline: the order-dependent tests already known, and which findings are new.

In continuous integration a repository that already has order-dependent tests would fail
every pull request if each finding failed the check. The baseline holds what is known
(the dependencies file, an earlier report): per test its kind and its known polluters or
state-setters. :func:`judge` then splits a report's findings into *known* ones (a notice)
and *new* ones (they fail the check):

* a test the baseline does not name is new;
* a known victim with a polluter the baseline does not name is new (the change made it
  worse), and so is one that failed in an order without any of its known polluters
  before it (unclassified findings carry only their failing order);
* a known victim that now fails alone (a brittle) is new, not the other way round: a
  known brittle's failure is the known one whatever came before it;
* a non-idempotent test is known only when the baseline's report lists it.

A test the baseline knows without its partners (an unclassified finding of a report) is
known whatever its partners are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Optional

from orderdep.core.depsfile import Dependency
from orderdep.core.report import ODFinding, Report


@dataclass
class KnownTest:
    """What the baseline knows of one test: its kind and its partners (polluters of a
    victim, state-setters of a brittle; group members too). ``any_partner``: a source
    knows the test without knowing why (an unclassified finding), so every failure of it
    is known."""

    kind: Optional[str] = None
    partners: set[str] = field(default_factory=set)
    any_partner: bool = False
    sources: list[str] = field(default_factory=list)


@dataclass
class Baseline:
    """The known order-dependent tests, and the non-idempotent ones, by test id."""

    tests: dict[str, KnownTest] = field(default_factory=dict)
    nio: dict[str, list[str]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def _entry(self, test: str, source: str) -> KnownTest:
        known = self.tests.setdefault(test, KnownTest())
        if source not in known.sources:
            known.sources.append(source)
        return known

    def add_deps(self, deps: Iterable[Dependency], source: str) -> None:
        """The entries of a dependencies file: negative ones name victims and their
        polluters, positive ones brittles and their state-setters."""
        self.sources.append(source)
        for dep in deps:
            known = self._entry(dep.test, source)
            known.kind = known.kind or ("victim" if dep.kind == "negative" else "brittle")
            known.partners.update(dep.group or (dep.dependee,))

    def add_report(self, report: Report, source: str) -> None:
        """The findings of a report (an unclassified one knows the test, not why)."""
        self.sources.append(source)
        for finding in report.od_tests:
            known = self._entry(finding.test, source)
            known.kind = known.kind or finding.kind
            known.partners.update(partners(finding))
            known.any_partner = known.any_partner or finding.kind is None
        for test in report.nio_tests:
            self.nio.setdefault(test, []).append(source)

    def __bool__(self) -> bool:
        return bool(self.sources)


def partners(finding: ODFinding) -> set[str]:
    """The polluters or state-setters a classified finding names, group members too."""
    out = set(finding.polluters) | set(finding.state_setters)
    for group in [*finding.polluter_groups, *finding.state_setter_groups]:
        out.update(group)
    return out


@dataclass(frozen=True)
class Verdict:
    """A finding judged against the baseline: new (fails the check) or known, and why."""

    test: str
    new: bool
    reason: str


def _before(order: Sequence[str], test: str) -> set[str]:
    return set(order[: order.index(test)]) if test in order else set(order)


def judge_finding(finding: ODFinding, baseline: Baseline) -> Verdict:
    test = finding.test
    known = baseline.tests.get(test)
    if known is None:
        return Verdict(test, True, "new: not in the baseline")
    said = f"known (baseline: {', '.join(known.sources)})"
    if known.any_partner or known.kind != "victim" or not known.partners:
        return Verdict(test, False, said)
    if finding.kind == "brittle":
        return Verdict(test, True, "worse: known as a victim, now fails alone (brittle)")
    new = sorted(partners(finding) - known.partners)
    if new:
        return Verdict(test, True, f"worse: new polluter(s) {', '.join(new)}")
    if finding.kind is None and not _before(finding.failing_order, test) & known.partners:
        return Verdict(test, True, "worse: fails in an order without any of its known polluters")
    return Verdict(test, False, said)


def judge(report: Report, baseline: Baseline) -> dict[str, Verdict]:
    """A verdict per order-dependent and non-idempotent test of ``report``."""
    out = {f.test: judge_finding(f, baseline) for f in report.od_tests}
    for test in report.nio_tests:
        sources = baseline.nio.get(test)
        out.setdefault(
            test,
            Verdict(test, False, f"known (baseline: {', '.join(sources)})")
            if sources
            else Verdict(test, True, "new: not in the baseline"),
        )
    return out
