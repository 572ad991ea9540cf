"""What a classification finished, written into each finding when the budget (or
Ctrl-C) stops it, and read back so that a later classification resumes there."""

from __future__ import annotations

import copy

from orderdep.analysis.budget import UNFINISHED_KEY, unfinished
from orderdep.analysis.classify_steps import PHASES, Item
from orderdep.core.report import ODFinding


def phases_done(finding: ODFinding) -> set[str]:
    """The phases of :data:`PHASES` a finding's classification finished, read back from
    what :func:`mark_unfinished` wrote in it (all of them when nothing is unfinished)."""
    if finding.kind is None:
        return set()
    marks = finding.extras.get(UNFINISHED_KEY)
    if not isinstance(marks, dict):
        return set(PHASES)
    if "kind" in marks:
        return set()
    victim = finding.kind == "victim"
    partners = str(marks.get("polluters" if victim else "state_setters", ""))
    done = {"kind"}
    if not partners or partners.startswith("partly searched"):
        done.add("partner")
    if not partners:
        done.add("partners")
        if not (victim and "cleaners" in marks):
            done.add("cleaners")
    if "cleaners" in done and "flake_rate" not in marks:
        done.add("flake-rate")
    return done


def polluters_incomplete(finding: ODFinding) -> bool:
    """Whether the search for a victim's polluters did not finish (the budget): other
    tests than those it names may pollute it too."""
    marks = finding.extras.get(UNFINISHED_KEY)
    return finding.kind == "victim" and isinstance(marks, dict) and "polluters" in marks


def kind_from_orders(item: Item) -> bool:
    """The kind and one partner an unclassified finding's confirmed orders show by
    themselves (each order was seen several times with the same outcome): passing alone
    and failing after one test, a victim and its polluter; failing alone and passing
    after one test, a brittle and its state-setter. For a budget that ended before the
    kind step: sets them and the phases done; False when the orders show neither."""
    f, before = item.finding, item.before
    if before is not None and before.kind is not None:
        return False  # an earlier classification says more
    t = f.test
    if f.passing_order == [t] and len(f.failing_order) == 2 and f.failing_order[1] == t:
        f.kind, f.polluters = "victim", [f.failing_order[0]]
    elif f.failing_order == [t] and len(f.passing_order) == 2 and f.passing_order[1] == t:
        f.kind, f.state_setters = "brittle", [f.passing_order[0]]
    else:
        return False
    item.done |= {"kind", "partner"}
    return True


def mark_unfinished(item: Item, reason: str) -> None:
    """Say, in the finding, what the budget (or Ctrl-C) left undone."""
    finding, done = item.finding, item.done
    marks: dict[str, str] = {}
    if "kind" not in done:
        before = item.before
        if before is not None:  # what an earlier classification found stays
            for name in ("kind", "polluters", "polluter_groups", "cleaners", "state_setters",
                         "state_setter_groups", "flake_rate", "extras"):  # fmt: skip
                setattr(finding, name, copy.deepcopy(getattr(before, name)))
        redo = before is not None and before.kind is not None
        marks["kind"] = unfinished("not re-classified" if redo else "not classified", reason)
    else:
        victim = finding.kind == "victim"
        partners = "polluters" if victim else "state_setters"
        if "partners" not in done:
            searched = "partner" in done
            marks[partners] = unfinished("partly searched" if searched else "not searched", reason)
            marks["polluter_groups" if victim else "state_setter_groups"] = unfinished(
                "not searched", reason
            )
        if victim and "cleaners" not in done:
            marks["cleaners"] = unfinished("not searched", reason)
        marks["flake_rate"] = unfinished("not computed", reason)
    finding.extras[UNFINISHED_KEY] = marks


__all__ = ["mark_unfinished", "phases_done", "polluters_incomplete"]
