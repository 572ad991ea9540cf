"""After :func:`~orderdep.analysis.why.search.why`: the polluted state and a verified patch.

Both come from the repair package's public functions: the Debugger
(:func:`~orderdep.analysis.repair.locate.debugger.debug`) diffs the roots captured right before
the test in its minimal failing and passing orders and restores them one at a time; the
:class:`~orderdep.analysis.repair.fix.Repairer` builds candidate patches and offers one
only once it made the test pass in both orders (and, unless told otherwise, left the
rest of the suite's outcomes alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from orderdep.analysis.repair.locate.debugger import DebugError, debug
from orderdep.analysis.repair.locate.root_info import DebugResult
from orderdep.analysis.why.search import WhyResult
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

if TYPE_CHECKING:
    # The Repairer (libcst) is imported only when a patch is asked for.
    from orderdep.analysis.repair.fix_result import FixResult

Progress = Callable[[str], None]


@dataclass
class Explanation:
    debug: Optional[DebugResult] = None
    fix: Optional[FixResult] = None
    notes: list[str] = field(default_factory=list)


def finding_of(result: WhyResult) -> ODFinding:
    """The classified finding ``result`` amounts to (for the repair package)."""
    test, group = result.test, list(result.culprits)
    finding = ODFinding(
        test,
        "victim" if result.verdict == "victim" else "brittle",
        failing_order=list(result.failing_order),
        passing_order=list(result.passing_order),
    )
    if result.verdict == "victim":
        finding.polluters, finding.polluter_groups = (
            (group, []) if len(group) == 1 else ([], [group])
        )
    else:
        finding.state_setters, finding.state_setter_groups = (
            (group, []) if len(group) == 1 else ([], [group])
        )
    return finding


def explain(
    engine: Engine,
    result: WhyResult,
    *,
    repair: bool = True,
    state: bool = True,
    suite_check: bool = True,
    progress: Optional[Progress] = None,
) -> Explanation:
    """The Debugger's root diff for ``result``'s minimal orders, and a verified fix if
    ``repair`` (the Repairer runs the Debugger itself)."""
    say = progress or (lambda message: None)
    out = Explanation()
    if not result.found or not (repair or state):
        return out
    finding = finding_of(result)
    if repair:
        say("looking for a verified patch (the Debugger first)")
        from orderdep.analysis.repair.fix import Repairer

        repairer = Repairer(engine.config, engine, progress=say, full_suite=suite_check)
        out.fix = repairer.repair(finding)
        out.debug = out.fix.debug
        if out.debug is not None or not out.fix.reproduced:
            return out  # debugged already, or it passed in its failing order: nothing to diff
    say("diffing the state before the test in its failing and passing orders")
    try:
        out.debug = debug(
            engine,
            result.test,
            kind=finding.kind or "victim",
            failing_order=result.failing_order,
            passing_order=result.passing_order,
            progress=say,
        )
    except DebugError as exc:
        out.notes.append(f"debugger: {exc}")
    return out
