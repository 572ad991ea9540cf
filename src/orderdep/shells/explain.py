"""Plain-language explanations of classified OD tests, each with the commands that show it."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

from orderdep.analysis.collection_check import file_of
from orderdep.core.odmodel import group_key
from orderdep.core.report import COLLECTED_KEY, OWN_FILE_KEY, ODFinding
from orderdep.shells.commands.engine_cmds import run_command


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _percent(rate: Optional[float]) -> str:
    if rate is None:
        return "?"
    return f"{rate * 100:.1f}%"


def sentence(finding: ODFinding, rate: bool = True) -> str:
    """One line: what breaks this test, what resets it, how often it fails at random
    (unless not ``rate``)."""
    parts: list[str] = []
    if finding.kind == "victim" and COLLECTED_KEY in finding.extras:
        polluter = file_of(finding.polluters[0]) if finding.polluters else None
        parts.append(
            "passes when pytest collects only its own file (`pytest FILE`, `pytest ID`) and "
            + (
                f"fails once {polluter} is collected too: that module's"
                if polluter
                else "fails whenever the whole suite is collected: another module's"
            )
            + " import-time code changes the state it needs"
        )
    elif finding.kind == "victim":
        what = []
        if finding.polluters:
            what.append(f"any of {_n(len(finding.polluters), 'polluter')}")
        if finding.polluter_groups:
            what.append(_n(len(finding.polluter_groups), "polluter group"))
        unknown = "many tests together" if finding.needs_many_tests else "an unknown polluter"
        parts.append("fails after " + (" or ".join(what) if what else unknown))
        cleaners = {c for cs in finding.cleaners.values() for c in cs}
        parts.append(f"{_n(len(cleaners), 'cleaner')} reset{'s' if len(cleaners) == 1 else ''} it")
    elif finding.kind == "brittle" and COLLECTED_KEY in finding.extras:
        setter = file_of(finding.state_setters[0]) if finding.state_setters else None
        needed = (
            f"passes once {setter} is collected too: that module's"
            if setter
            else "passes with the whole suite collected: another module's"
        )
        parts.append(
            "fails when pytest collects only its own file (`pytest FILE`, `pytest ID`) and "
            f"{needed} import-time code sets the state it needs"
        )
    elif finding.kind == "brittle":
        what = []
        if finding.state_setters:
            what.append(f"one of {_n(len(finding.state_setters), 'state-setter')}")
        if finding.state_setter_groups:
            what.append(_n(len(finding.state_setter_groups), "state-setter group"))
        unknown = "many tests" if finding.needs_many_tests else "some test"
        parts.append("fails unless " + (" or ".join(what) if what else unknown) + " runs first")
        if finding.extras.get(OWN_FILE_KEY) == "passed":
            parts.append(
                "but passes alone as `pytest ID` runs it (only its file collected): another "
                "test module's import-time code leaves the state it fails on, which every "
                "run collecting the whole suite (shuffled, xdist) has"
            )
    else:
        parts.append("order-dependent (not classified yet: run `orderdep classify`)")
    if rate and finding.flake_rate.get("all") is not None:
        parts.append(f"fails in {_percent(finding.flake_rate['all'])} of random orders")
    return "; ".join(parts)


def evidence_orders(finding: ODFinding) -> list[tuple[str, list[str]]]:
    """(label, order) pairs that show the explanation, each as short as it can be: one
    polluter (or the first group) then the test; the test alone and after one
    state-setter; the confirmed failing order when the test is not classified."""
    out: list[tuple[str, list[str]]] = []
    test = finding.test
    if finding.kind == "victim" and collects_part(finding, "passes"):
        # fails with another module collected; passes as `pytest ID` runs it
        return [("fails", list(finding.failing_order)), ("passes", [test])]
    if finding.kind == "victim":
        culprit: Optional[Sequence[str]] = None
        if finding.polluters:
            culprit = [finding.polluters[0]]
        elif finding.polluter_groups:
            culprit = finding.polluter_groups[0]
        if culprit is not None:
            out.append(("fails", [*culprit, test]))
            key = culprit[0] if len(culprit) == 1 else group_key(culprit)
            cleaners = finding.cleaners.get(key) or []
            if cleaners:
                out.append(("passes", [*culprit, cleaners[0], test]))
        elif finding.failing_order:
            out.append(("fails", list(finding.failing_order)))
    elif finding.kind == "brittle":
        out.append(("fails", [test]))
        setter: Optional[Sequence[str]] = None
        if finding.state_setters:
            setter = [finding.state_setters[0]]
        elif finding.state_setter_groups:
            setter = finding.state_setter_groups[0]
        if setter is not None:
            out.append(("passes", [*setter, test]))
    elif finding.failing_order:
        out.append(("fails", list(finding.failing_order)))
    return out


def pytest_command(
    project: Path, order: Sequence[str], python: str = "python", options: Sequence[str] = ()
) -> str:
    """The plain pytest command, run in ``project``, that runs ``order`` collecting only
    its files, as ``pytest ID ...`` does (with the user's ``options``)."""
    return (
        shlex.join(["cd", str(project)])
        + " && "
        + shlex.join([python, "-m", "pytest", "-p", "no:randomly", *options, *order])
    )


def collects_part(finding: ODFinding, label: str) -> bool:
    """Whether ``finding``'s ``"fails"`` (``"passes"``) order shows it only when pytest
    collects the order's files alone (see :data:`~orderdep.core.finding.COLLECTED_KEY`)."""
    said = finding.extras.get(COLLECTED_KEY)
    key = "failing" if label == "fails" else "passing"
    return isinstance(said, dict) and isinstance(said.get(key), list)


def evidence_commands(
    finding: ODFinding, project: Path, flags: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """(label, command) pairs that reproduce the explanation, with the engine ``flags``
    the printing command ran with: a plain pytest command for an order that shows it
    only with its files collected alone."""
    return [
        (
            label,
            pytest_command(project, order)
            if collects_part(finding, label)
            else run_command(project, order, flags=flags),
        )
        for label, order in evidence_orders(finding)
    ]


#: How many partners a summary names before "and N more".
NAMED = 3


def named(ids: Sequence[str], limit: int = NAMED) -> str:
    """``a, b, c and 4 more``: the first ``limit`` ids, then how many are left."""
    shown = ", ".join(ids[:limit])
    rest = len(ids) - limit
    return f"{shown} and {rest} more" if rest > 0 else shown


def _groups(groups: Sequence[Sequence[str]]) -> list[str]:
    return ["(" + " then ".join(g) + ")" for g in groups]


def polluted_roots(finding: ODFinding) -> list[str]:
    """The shared state PRADET saw the partners write and the test read, when it ran."""
    pradet: Any = finding.extras.get("pradet")
    deps = pradet.get("dependencies") if isinstance(pradet, dict) else None
    roots: list[str] = []
    for dep in deps if isinstance(deps, list) else []:
        for root in dep.get("roots", []) if isinstance(dep, dict) else []:
            if isinstance(root, str) and root not in roots:
                roots.append(root)
    return roots


def _cleaners_line(finding: ODFinding) -> str:
    # The first named is the one the `passes` command uses (the first polluter's).
    cleaners = list(dict.fromkeys(c for cs in finding.cleaners.values() for c in cs))
    first = [c for _, order in evidence_orders(finding)[1:2] for c in order[-2:-1]]
    cleaners = [*first, *[c for c in cleaners if c not in first]]
    shown = named(cleaners, 1) if cleaners else "none found"
    return f"cleaners ({len(cleaners)}): {shown}"


def partner_lines(finding: ODFinding) -> list[str]:
    """What a classified finding names: partners (first few), cleaners, flake rates, roots."""
    lines: list[str] = []
    if finding.kind == "victim":
        if finding.polluters:
            lines.append(f"polluters ({len(finding.polluters)}): {named(finding.polluters)}")
        if finding.polluter_groups:
            groups = _groups(finding.polluter_groups)
            lines.append(f"polluter groups ({len(groups)}): {named(groups)}")
        if not finding.polluters and not finding.polluter_groups:
            lines.append("polluters: none found")
        if COLLECTED_KEY not in finding.extras:  # else a module's import pollutes: no cleaner
            lines.append(_cleaners_line(finding))
    elif finding.kind == "brittle":
        if finding.state_setters:
            setters = finding.state_setters
            lines.append(f"state-setters ({len(setters)}): {named(setters)}")
        if finding.state_setter_groups:
            groups = _groups(finding.state_setter_groups)
            lines.append(f"state-setter groups ({len(groups)}): {named(groups)}")
        if not finding.state_setters and not finding.state_setter_groups:
            lines.append("state-setters: none found")
    lines += [f"note: {sentence}" for sentence in finding.needs_many_tests]
    if finding.observed_fewer is not None:
        runs, asked = finding.observed_fewer
        lines.append(
            f"note: each order that shows it ran {runs} times, not {asked}, with the same "
            "outcome: the budget ended first (rerunning the command runs the rest)"
        )
    rates = finding.flake_rate
    if rates.get("all") is not None:
        # With one cleaner looked for per polluter, others may exist: the rate is a bound.
        bound = "at most " if finding.flake_rate_is_upper_bound else ""
        line = f"flake rate: {bound}{_percent(rates['all'])} of random orders"
        if rates.get("grouped") is not None:
            line += f", {bound}{_percent(rates['grouped'])} of orders keeping groups together"
        if bound:
            line += " (more cleaners may exist: --all-cleaners finds every one)"
        lines.append(line)
    roots = polluted_roots(finding)
    if roots:
        lines.append(f"polluted root{'s' if len(roots) > 1 else ''}: {named(roots)}")
    return lines


def finding_lines(
    finding: ODFinding, command: Callable[[list[str], str], str], indent: str = "  "
) -> list[str]:
    """The named explanation of one OD test, each evidence order as ``command(order,
    "fails" or "passes")``; the failing one is labelled ``reproduce``."""
    labels = {"fails": "reproduce", "passes": "passes"}
    lines = [f"{indent}{line}" for line in partner_lines(finding)]
    for label, order in evidence_orders(finding):
        lines.append(f"{indent}{labels[label]}: {command(order, label)}")
    return lines


def explain_lines(finding: ODFinding, project: Path, flags: Sequence[str] = ()) -> list[str]:
    kind = finding.kind or "order-dependent"
    lines = [f"{finding.test} [{kind}]", f"  {sentence(finding, rate=False)}"]
    lines += [f"  {line}" for line in partner_lines(finding)]
    for label, command in evidence_commands(finding, project, flags):
        lines.append(f"  {label}: {command}")
    return lines
