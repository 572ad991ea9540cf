"""A brittle that needs what a fixture of its state-setter sets up: request the fixture.

A state-setter often does nothing in its body that the brittle lacks: the state comes
from a fixture it requests (a session fixture registering a codec error handler, a
module fixture creating a table) that the brittle forgot to ask for. Copying statements
cannot help then, and the state may not be visible to the debugger (an interpreter
registry). The fix a maintainer writes is one parameter: the brittle requests that
fixture too. Found from the source, without the debugger; each candidate is verified
like every other.
"""

from __future__ import annotations

from pathlib import Path

from orderdep.analysis.repair.candidates.candidates import Candidate, short_name
from orderdep.analysis.repair.candidates.fixture_defs import FixtureDef, FixtureIndex
from orderdep.analysis.repair.candidates.fixture_steps import missing_step_candidates
from orderdep.analysis.repair.candidates.sources import read_function, requested_fixtures
from orderdep.analysis.repair.write.patches import Insertion, function_path
from orderdep.analysis.repair.write.unittest_patches import testcase_methods
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError


def setter_fixture_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """For a brittle: each project fixture a state-setter uses that the brittle does not
    (and can: the same definition is visible from it), requested by the brittle; the
    fixtures the setter requests itself come first. Before them, the steps a brittle's
    copy of such a fixture's set-up leaves out (:mod:`.fixture_steps`)."""
    brittle = finding.test
    out = missing_step_candidates(project, finding)  # a copy of a fixture's set-up, completed
    try:
        source = read_function(project, brittle)
    except UsageError:
        return out
    _, classes, _ = function_path(brittle)
    if classes and testcase_methods(source.source, classes) is not None:
        return out  # a TestCase's methods take no fixtures
    index = FixtureIndex(project)
    mine = {(d.file, d.name) for d in index.closure(brittle, requested_fixtures(project, brittle))}
    setters = finding.state_setters or [m for g in finding.state_setter_groups for m in g]
    offered: set[str] = set()
    for setter in setters:
        asked = requested_fixtures(project, setter)
        usable: list[FixtureDef] = []
        for d in index.closure(setter, asked):
            if (d.file, d.name) in mine or d.autouse or d.name in source.params:
                continue
            if index.resolve(brittle, d.name) != d:
                continue  # the brittle would get another fixture of that name
            usable.append(d)
        usable.sort(key=lambda d: d.name not in asked)  # the setter's own requests first
        for d in usable:
            if d.name in offered:
                continue
            offered.add(d.name)
            why = f"requests fixture {d.name}, which {short_name(setter)} uses"
            out.append(Candidate("fixture", why, [Insertion(brittle, (), (d.name,))]))
    return out
