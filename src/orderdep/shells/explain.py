"""Plain-language explanations of classified OD tests, each with the commands that show it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.core.odmodel import group_key
from orderdep.core.report import ODFinding
from orderdep.shells.commands.engine_cmds import run_command


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _percent(rate: Optional[float]) -> str:
    if rate is None:
        return "?"
    return f"{rate * 100:.1f}%"


def sentence(finding: ODFinding) -> str:
    """One line: what breaks this test, what resets it, how often it fails at random."""
    parts: list[str] = []
    if finding.kind == "victim":
        what = []
        if finding.polluters:
            what.append(f"any of {_n(len(finding.polluters), 'polluter')}")
        if finding.polluter_groups:
            what.append(_n(len(finding.polluter_groups), "polluter group"))
        parts.append("fails after " + (" or ".join(what) if what else "an unknown polluter"))
        cleaners = {c for cs in finding.cleaners.values() for c in cs}
        parts.append(f"{_n(len(cleaners), 'cleaner')} reset{'s' if len(cleaners) == 1 else ''} it")
    elif finding.kind == "brittle":
        what = []
        if finding.state_setters:
            what.append(f"one of {_n(len(finding.state_setters), 'state-setter')}")
        if finding.state_setter_groups:
            what.append(_n(len(finding.state_setter_groups), "state-setter group"))
        parts.append("fails unless " + (" or ".join(what) if what else "some test") + " runs first")
    else:
        parts.append("order-dependent (not classified yet: run `orderdep classify`)")
    rate = finding.flake_rate.get("all")
    if rate is not None:
        parts.append(f"fails in {_percent(rate)} of random orders")
    return "; ".join(parts)


def evidence_commands(finding: ODFinding, project: Path) -> list[tuple[str, str]]:
    """(label, command) pairs that reproduce the explanation."""
    out: list[tuple[str, str]] = []
    test = finding.test
    if finding.kind == "victim":
        culprit: Optional[Sequence[str]] = None
        if finding.polluters:
            culprit = [finding.polluters[0]]
        elif finding.polluter_groups:
            culprit = finding.polluter_groups[0]
        if culprit is not None:
            out.append(("fails", run_command(project, [*culprit, test])))
            key = culprit[0] if len(culprit) == 1 else group_key(culprit)
            cleaners = finding.cleaners.get(key) or []
            if cleaners:
                out.append(("passes", run_command(project, [*culprit, cleaners[0], test])))
    elif finding.kind == "brittle":
        out.append(("fails", run_command(project, [test])))
        setter: Optional[Sequence[str]] = None
        if finding.state_setters:
            setter = [finding.state_setters[0]]
        elif finding.state_setter_groups:
            setter = finding.state_setter_groups[0]
        if setter is not None:
            out.append(("passes", run_command(project, [*setter, test])))
    elif finding.failing_order:
        out.append(("fails", run_command(project, finding.failing_order)))
    return out


def explain_lines(finding: ODFinding, project: Path) -> list[str]:
    kind = finding.kind or "order-dependent"
    lines = [f"{finding.test} [{kind}]", f"  {sentence(finding)}"]
    for label, command in evidence_commands(finding, project):
        lines.append(f"  {label}: {command}")
    return lines
