"""A brittle that repeats a set-up but leaves a step out: the step, where it belongs.

A test often copies the set-up of a fixture (or of another test) instead of requesting
it: it writes the same data file and patches the same configuration, but leaves out the
call that loads what it wrote. It then passes only after a test whose fixture made that
call. Requesting the fixture cannot help (its set-up runs twice: a directory made twice
fails), and copying the state-setter's statements to the start of the test runs the
step before the test's own set-up. What a maintainer adds is the missing step, right
after the test's copy of the statement it follows in the donor.

The donors are the fixtures a state-setter uses and the state-setter itself; a donor
qualifies when the test repeats at least two of its statements in their order and leaves
out fewer than it repeats. The steps may only use what the test has: its parameters,
names its own statements bind, and names of its module. Found from the source, without
the debugger; each candidate is verified like every other.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, short_name
from orderdep.analysis.repair.candidates.fixture_defs import FixtureIndex
from orderdep.analysis.repair.candidates.sources import (
    FunctionSource,
    free_names,
    read_function,
    requested_fixtures,
)
from orderdep.analysis.repair.write.patches import Insertion, function_path, statement_key
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

MIN_REPEATED = 2  # statements of a donor the test must repeat to be a copy of its set-up


def missing_step_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """For a brittle: the steps of each donor (see the module doc) its copy of the
    donor's set-up leaves out, inserted after the statements they follow there."""
    brittle = finding.test
    try:
        test = read_function(project, brittle)
    except UsageError:
        return []
    index = FixtureIndex(project)
    setters = finding.state_setters or [m for g in finding.state_setter_groups for m in g]
    donors: dict[str, str] = {}  # node id of the donor -> how the description names it
    for setter in setters:
        for d in index.closure(setter, requested_fixtures(project, setter)):
            donors.setdefault(d.node_id, f"fixture {d.name}, which {short_name(setter)} uses")
        donors.setdefault(setter, f"state-setter {short_name(setter)}")
    out: list[Candidate] = []
    seen: set[tuple[Insertion, ...]] = set()
    for donor_id, named in donors.items():
        try:
            donor = read_function(project, donor_id)
        except UsageError:
            continue
        same_class = function_path(donor_id)[1] == function_path(brittle)[1]
        insertions = _steps(test, donor, same_class)
        if not insertions or insertions in seen:
            continue
        seen.add(insertions)
        steps = sum(len(i.statements) for i in insertions)
        what = "the step" if steps == 1 else f"the {steps} steps"
        why = f"adds {what} of {named}, that the test's copy of its set-up leaves out"
        # the state it sets up outlives the test, as the donor's own set-up already makes
        # it do: not ranked with the transplants that leak state of their own
        out.append(Candidate("fixture", why, list(insertions)))
    return out


def _parsed(statements: Sequence[str]) -> list[Optional[ast.stmt]]:
    out: list[Optional[ast.stmt]] = []
    for text in statements:
        try:
            body = ast.parse(textwrap.dedent(text)).body
        except SyntaxError:
            body = []
        out.append(body[0] if len(body) == 1 else None)
    return out


def _set_up(donor: FunctionSource) -> list[str]:
    """The donor's statements that set up: up to its ``yield`` (a fixture's teardown
    follows), without ``return`` and ``assert``."""
    out: list[str] = []
    for text, node in zip(donor.statements, _parsed(donor.statements)):
        if node is None:
            return []
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)):
            break
        if not isinstance(node, (ast.Return, ast.Assert)):  # set-up, not checks
            out.append(text)
    return out


def _steps(test: FunctionSource, donor: FunctionSource, same_class: bool) -> tuple[Insertion, ...]:
    """The insertions adding to ``test`` the steps of ``donor`` it leaves out (none when
    the test does not repeat the donor's set-up, or a step needs what the test lacks)."""
    mine = [statement_key(t) for t in test.statements]
    theirs = _set_up(donor)
    matched: dict[int, int] = {}  # donor statement -> the test's repeat of it
    at = 0
    for i, text in enumerate(theirs):
        key = statement_key(text)
        if key is not None and key in mine[at:]:
            matched[i] = mine.index(key, at)
            at = matched[i] + 1
    if len(matched) < MIN_REPEATED:
        return ()
    first = min(matched)
    missing = [i for i in range(first, len(theirs)) if i not in matched]
    if not missing or len(missing) >= len(matched):
        return ()
    if not _usable([theirs[i] for i in missing], test, donor, same_class):
        return ()
    groups: dict[int, list[str]] = {}  # the test's statement -> the steps after it
    for i in missing:
        anchor = max(j for j in matched if j < i)
        groups.setdefault(matched[anchor], []).append(theirs[i])
    return tuple(
        Insertion(test.test, tuple(steps), (), after=mine[anchor])
        for anchor, steps in sorted(groups.items())
    )


def _usable(
    steps: Sequence[str], test: FunctionSource, donor: FunctionSource, same_class: bool
) -> bool:
    """Whether every name ``steps`` read is one the test has: a builtin, its parameter,
    a name its statements bind, a name of its module (the donor's module's names only in
    the same file), ``self`` only in a method of the donor's class."""
    have = set(test.params) | _bound(test.statements) | _module_names(test.source)
    if donor.file != test.file:
        have -= _module_names(donor.source) - _module_names(test.source)
    for name in free_names(steps):
        if name == "self":
            if not same_class:
                return False
        elif name not in have:
            return False
    return True


def _bound(statements: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for node in _parsed(statements):
        for n in ast.walk(node) if node is not None else ():
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
    return out


def _module_names(source: str) -> set[str]:
    """Names the top of a module binds (imports, assignments, functions, classes)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return out
