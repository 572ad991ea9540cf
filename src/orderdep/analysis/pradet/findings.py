"""PRADET's manifest dependencies as report findings (004's vocabulary), merged into a report.

A dependency whose dependee alone shows it (``alone``) is an alternative of its own
(``state_setters``/``polluters``); several that only show it together become one group.
Conditional dependencies (the dependent alone contradicts the kind) stay under the
report's ``"pradet"`` key (:func:`summary_json`) and never become findings.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from orderdep.analysis.pradet.evidence import Evidence, PradetResult
from orderdep.core.odmodel import group_key
from orderdep.core.report import ODFinding, Report, RunStats
from orderdep.errors import ReportError


def findings(result: PradetResult) -> list[ODFinding]:
    """One OD finding per dependent test, from the confirmed, unconditional dependencies.

    A test found both ways keeps the kind found first (the reference order's before the
    reversed one's); the other kind's dependencies stay under its ``"pradet"`` key.
    """
    positions = {
        c.source: {t: i for i, t in enumerate(c.order)} for c in result.collected.collections
    }
    by_test: dict[str, list[Evidence]] = {}
    for e in result.manifest:
        by_test.setdefault(e.dependency.dependent, []).append(e)
    out = []
    for test, found in by_test.items():
        kind = found[0].dependency.kind
        same = [e for e in found if e.dependency.kind == kind]
        singles = [e.dependency.dependee for e in same if e.alone]
        rest = [e for e in same if not e.alone]
        groups: list[list[str]] = []
        if len(rest) == 1:
            singles.append(rest[0].dependency.dependee)
        elif rest:
            where = positions.get(rest[0].dependency.source, {})
            members = sorted({e.dependency.dependee for e in rest}, key=lambda t: where.get(t, -1))
            groups.append(members)
        shown = next((e for e in same if e.alone), same[0]).dependency
        finding = ODFinding(
            test=test,
            kind=kind,
            failing_order=list(shown.failing_order),
            passing_order=list(shown.passing_order),
            extras={"pradet": {"dependencies": [e.to_json() for e in found]}},
        )
        if kind == "victim":
            finding.polluters, finding.polluter_groups = _unique(singles), groups
            for e in same:
                if e.cleaner is not None:
                    key = e.dependency.dependee if e.alone or not groups else group_key(groups[0])
                    cleaners = finding.cleaners.setdefault(key, [])
                    if e.cleaner not in cleaners:
                        cleaners.append(e.cleaner)
        else:
            finding.state_setters, finding.state_setter_groups = _unique(singles), groups
        out.append(finding)
    return out


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def summary_json(result: PradetResult) -> dict[str, Any]:
    """The report's ``"pradet"`` key: data dependencies, their roots, outcomes, cost."""
    collected = result.collected
    deps = collected.data_dependencies()
    used = sorted({r for d in deps for r in d["roots"]})
    writers: dict[str, int] = {}
    about: dict[str, str] = {}
    for c in collected.collections:
        for root, tests in c.writers().items():
            writers[root] = max(writers.get(root, 0), len(tests))
            if c.roots.get(root):
                about.setdefault(root, c.roots[root])
    return {
        "reference": collected.reference,
        "collections": [
            {
                "source": c.source,
                "tests": len(c.order),
                "data_dependencies": c.graph().number_of_edges(),
                "failing": c.failing(),
                "wall_seconds": round(c.wall_seconds, 6),
            }
            for c in collected.collections
        ],
        "data_dependencies": deps,
        "roots": {r: {"writers": writers.get(r, 0), "value": about.get(r, "")} for r in used},
        "manifest": [e.to_json() for e in result.evidence],
        "removed": len(result.refined.removed),
        "untestable": [list(e) for e in result.refined.untestable],
        "untested": [list(e) for e in result.refined.untested],  # the budget ran out
        "unconfirmed": [m.to_json() for m in result.unconfirmed],
        "flaky": list(result.flaky),
        "executions": result.executions,
        "orders_run": result.orders_run,
        "wall_seconds": round(result.wall_seconds, 6),
    }


def merge_report(report: Optional[Report], result: PradetResult) -> Report:
    """``report`` (or a new one) with PRADET's findings merged in and its ``"pradet"`` key.

    An existing finding of the same kind gains the new polluters/state-setters; an
    unclassified one takes PRADET's kind; one of the other kind is left as it is (PRADET's
    view stays under its ``"pradet"`` key). Evidence orders already there are kept.
    Dependents found non-deterministic join the report's ND tests (unless it lists them
    as OD tests).
    """
    collected = result.collected
    new = findings(result)
    if report is None:
        report = Report(project=collected.project, tests=list(collected.tests))
    else:
        known = set(report.tests)
        stray = sorted({t for f in new for t in f.mentioned_ids()} - known)
        if stray:
            raise ReportError(
                f"the report lists another suite: {len(stray)} test(s) PRADET found, e.g. "
                f"{stray[0]!r}, are not in its tests; write to a new report with --report "
                "FILE, or delete the old one"
            )
    for finding in new:
        old = report.finding(finding.test)
        if old is None:
            report.od_tests.append(finding)
            continue
        mine = finding.extras["pradet"]
        if old.kind is None:
            old.kind = finding.kind
        if old.kind != finding.kind:
            old.extras["pradet"] = {**mine, "conflict": f"PRADET found a {finding.kind}"}
            continue
        old.polluters = _unique([*old.polluters, *finding.polluters])
        old.state_setters = _unique([*old.state_setters, *finding.state_setters])
        for attr in ("polluter_groups", "state_setter_groups"):
            groups: list[list[str]] = getattr(old, attr)
            groups += [g for g in getattr(finding, attr) if g not in groups]
        for key, cleaners in finding.cleaners.items():
            old.cleaners[key] = _unique([*old.cleaners.get(key, []), *cleaners])
        if not old.failing_order or not old.passing_order:
            old.failing_order, old.passing_order = finding.failing_order, finding.passing_order
        old.extras["pradet"] = mine
    od = {f.test for f in report.od_tests}
    report.nd_tests += [t for t in result.flaky if t not in od and t not in report.nd_tests]
    stats: RunStats = report.stats
    stats.orders_run += result.orders_run
    stats.test_executions += result.executions["total"]
    stats.wall_seconds += result.wall_seconds
    if "pradet" not in stats.strategies:
        stats.strategies.append("pradet")
    report.extras["pradet"] = summary_json(result)
    report.check_consistent("PRADET's report")
    return report
