"""One patch per polluted state: fixes shared by the OD tests a state breaks.

Two steps of ``fix`` build on the verified fixes of earlier OD tests instead of writing a
copy per test:

* :func:`shared_fixes`: before a victim is debugged, the root-cause fixes already
  verified for other victims of one of its polluters (the polluter's own clean-up, an
  autouse fixture), and the autouse fixtures verified for other victims of its file
  (another key of the same dict), are the first things tried for it. When one verifies
  for it too, the victim costs one verification and the patch set gains no line.
* :func:`hoist_blocks`: the same statements inserted at the start of several tests of one
  ``unittest.TestCase`` class go once into the class's ``setUp`` (added when missing);
  those inserted into several tests of one pytest class go once into an autouse fixture
  method of that class, and those of several module-level tests into an autouse fixture
  of the module; each when that verifies for every one of those tests. Where an autouse
  fixture does not verify (it would set up state for the state-setter that must find
  none) or cannot be written (the block uses the test's ``request``), several
  module-level tests request one fixture of the module holding the block instead.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import short_name
from orderdep.analysis.repair.fix_result import Fix, FixResult
from orderdep.analysis.repair.verify.verify import Verification, Verifier
from orderdep.analysis.repair.write.import_lifting import stdlib_names
from orderdep.analysis.repair.write.patches import Insertion, apply_insertions, function_path
from orderdep.analysis.repair.write.unittest_patches import testcase_methods
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

# edits that fix a state where it is made or for every test, not in the victim
ROOT_CAUSE_EDITS = frozenset(
    {"autouse", "module_autouse", "narrow", "setup_function", "session_fixture"}
)


def is_root_cause(fix: Fix) -> bool:
    """Whether ``fix`` changes the polluter's side or every test's (not the victim)."""
    return fix.strategy == "polluter" or any(i.edit in ROOT_CAUSE_EDITS for i in fix.insertions)


def _autouse(fix: Fix) -> bool:
    return any(i.edit in ("autouse", "module_autouse") for i in fix.insertions)


def shared_fixes(finding: ODFinding, done: Sequence[tuple[ODFinding, Fix]]) -> list[Fix]:
    """The verified root-cause fixes of earlier victims sharing a polluter with the victim
    ``finding``, and the autouse fixtures verified for earlier victims of its file (each
    patch once, those of the most shared polluters first)."""
    if finding.kind not in (None, "victim"):
        return []
    mine = set(finding.polluters) | {p for g in finding.polluter_groups for p in g}
    if not mine:
        return []
    scored: list[tuple[int, int, Fix]] = []
    seen: set[tuple[Insertion, ...]] = set()
    file = function_path(finding.test)[0]
    for i, (other, fix) in enumerate(done):
        theirs = set(other.polluters) | {p for g in other.polluter_groups for p in g}
        common = len(mine & theirs)
        # a fixture for every test, made for a victim of the same file: its other
        # polluters may change the same state (another key of one dict)
        near = _autouse(fix) and function_path(other.test)[0] == file
        key = tuple(dataclasses.replace(ins, comment=None) for ins in fix.insertions)
        if (common or near) and is_root_cause(fix) and key not in seen:
            seen.add(key)
            scored.append((-common, i, fix))
    return [fix for *_, fix in sorted(scored, key=lambda s: s[:2])]


def setters_of(finding: ODFinding) -> set[str]:
    return set(finding.state_setters) | {t for g in finding.state_setter_groups for t in g}


def moved_setups(
    finding: ODFinding, done: Sequence[tuple[ODFinding, Fix]], project: Path
) -> list[Fix]:
    """For a brittle: the set-ups verified for earlier brittles of one of its state-setters
    in the same file, moved to the start of this test (one verification instead of a
    debug; the block then goes once into their class's ``setUp`` or an autouse fixture,
    :func:`hoist_blocks`). Their changes are against the files as they are now."""
    if finding.kind != "brittle" or not setters_of(finding):
        return []
    file = function_path(finding.test)[0]
    out: list[Fix] = []
    seen: set[tuple[Insertion, ...]] = set()
    for other, fix in done:
        if other.kind != "brittle" or not setters_of(other) & setters_of(finding):
            continue
        if fix.strategy == "polluter" or any(
            i.test != other.test or i.edit != "insert" or i.file != file for i in fix.insertions
        ):
            continue
        moved = tuple(
            dataclasses.replace(i, test=finding.test, comment=_renamed(i.comment, other.test,
                                                                        finding.test))
            for i in fix.insertions
        )  # fmt: skip
        if moved in seen:
            continue
        seen.add(moved)
        try:
            changes = apply_insertions(project, list(moved))
        except UsageError:
            continue
        out.append(dataclasses.replace(fix, insertions=list(moved), changes=changes))
    return out


def _renamed(comment: Optional[str], old: str, new: str) -> Optional[str]:
    if not comment:
        return comment
    return comment.replace(short_name(old), short_name(new))


def for_victim(fix: Fix, found_for: str, victim: str) -> Fix:
    """``fix``, found for the victim ``found_for`` and verified for ``victim`` too, with
    comments naming ``victim`` where they named the other (``(test_a needs it)``); the
    patch set then merges them into one comment naming both (``(test_a and test_b need
    it)``)."""
    old, new = short_name(found_for), short_name(victim)
    if old == new:
        return fix
    pattern = re.compile(rf"\({re.escape(old)} (needs|fails)\b")

    def renamed(ins: Insertion) -> Insertion:
        if not ins.comment:
            return ins
        return dataclasses.replace(ins, comment=pattern.sub(rf"({new} \1", ins.comment))

    return dataclasses.replace(fix, insertions=[renamed(i) for i in fix.insertions])


@dataclass
class Hoisted:
    """Fixes of several tests replaced by one block: in their TestCase's ``setUp``, an
    autouse fixture of their class or module, or a fixture of their module they request."""

    where: str  # "path::Class" (its setUp), "path::Class::" or "path" (a fixture)
    tests: list[str]  # the test functions the block was in
    results: list[str]  # the OD tests whose fixes it replaced
    place: str  # "setUp" or the fixture's name
    requested: bool = False  # a fixture the tests request, not an autouse one


SHARED_FIXTURE = "_clean_up_before_each_test"
#: The fixture module-level tests request when an autouse one does not do.
REQUESTED_FIXTURE = "state_these_tests_need"


def _stdlib_import(statement: str) -> bool:
    """``import x`` of a standard-library module (``import copy``)."""
    words = statement.split()
    return len(words) == 2 and words[0] == "import" and words[1] in stdlib_names()


def _block_key(fix: Fix, project: Path) -> Optional[tuple[str, Insertion]]:
    """(where the block would go once, the insertion without its test, comment and
    standard-library imports) when ``fix`` is one block at the start of a test; else None. Tests
    of one TestCase share its ``setUp``; other tests of one module share an autouse
    fixture of it."""
    if len(fix.insertions) != 1:
        return None
    ins = fix.insertions[0]
    if ins.edit != "insert" or ins.method is not None or ins.after is not None:
        return None  # a step after the test's own statements needs them before it
    path, classes, _ = function_path(ins.test)
    try:
        source = (project / path).read_text(encoding="utf-8")
    except OSError:
        return None
    # the same block whatever standard-library imports an earlier patch already put at
    # the file's top (its local imports of other modules stay: they say what it reads)
    code = tuple(st for st in ins.statements if not _stdlib_import(st))
    block = dataclasses.replace(ins, test="", comment=None, statements=code)
    if classes and testcase_methods(source, classes) is not None:
        return "::".join([path, *classes]), block
    if classes:  # a pytest class: a fixture method of it, whose self is the test's
        if "request" in ins.fixtures:
            return None  # a test's own request would be a fixture's here
        return "::".join([path, *classes, ""]), block
    if any(re.search(r"\bself\b", st) for st in ins.statements):
        return None
    return path, block


def _names(tests: Sequence[str]) -> str:
    short = [t.rsplit("::", 1)[-1] for t in tests]
    return ", ".join(short[:-1]) + " and " + short[-1] if len(short) > 1 else short[0]


def _shared(where: str, block: Insertion, tests: list[str], setup: bool = False) -> Insertion:
    """The one insertion for ``tests``: into their TestCase's setUp, an autouse fixture
    method of their pytest class (``where`` ends with ``::``), else an autouse fixture of
    their module. ``setup``: it sets up what brittle tests need (not a clean-up)."""
    what = (
        "Set up before each test of this {} the state its tests need"
        if setup
        else "Clean up before each test of this {} what an earlier test may leave behind"
    )
    if where.endswith("::"):
        comment = f"{what.format('class')} ({_names(tests)} need it)."
        return dataclasses.replace(
            block, test=f"{where}{SHARED_FIXTURE}", comment=comment, edit="autouse"
        )
    if "::" in where:
        comment = f"{what.format('class')} ({_names(tests)} need it)."
        return dataclasses.replace(block, test=tests[0], method="setUp", comment=comment)
    comment = f"{what.format('module')} ({_names(tests)} need it)."
    return dataclasses.replace(
        block, test=f"{where}::{SHARED_FIXTURE}", comment=comment, edit="autouse"
    )


def _requested(where: str, block: Insertion, tests: list[str], setup: bool) -> list[Insertion]:
    """The block in a fixture of the module ``where`` that each of ``tests`` requests (its
    ``request`` is then the fixture's, of the same test)."""
    what = "Set up the state" if setup else "Clean up what an earlier test may leave behind"
    comment = f"{what} {_names(tests)} need."
    fixture = dataclasses.replace(
        block, test=f"{where}::{REQUESTED_FIXTURE}", comment=comment, edit="fixture"
    )
    return [fixture, *(Insertion(t, (), (REQUESTED_FIXTURE,)) for t in tests)]


def hoist_blocks(verifier: Verifier, project: Path, results: Sequence[FixResult]) -> list[Hoisted]:
    """Move a block inserted into two or more tests of one TestCase class into its
    ``setUp``, or into two or more other tests of one module into an autouse fixture of
    that module (else one they request), where that verifies for each of them; the results
    changed get the shared fix (its verification for them). Returns what was moved."""
    groups: dict[tuple[str, Insertion], list[FixResult]] = {}
    fullest: dict[tuple[str, Insertion], Insertion] = {}  # the block with its imports
    for result in results:
        if result.fix is None or result.target is None:
            continue
        key = _block_key(result.fix, project)
        if key is not None:
            groups.setdefault(key, []).append(result)
            block = dataclasses.replace(result.fix.insertions[0], test="", comment=None)
            if key not in fullest or len(block.statements) > len(fullest[key].statements):
                fullest[key] = block
    moved: list[Hoisted] = []
    for key, members in groups.items():
        where, block = key[0], fullest[key]
        tests = list(dict.fromkeys(r.fix.insertions[0].test for r in members if r.fix))
        if len(tests) < 2:
            continue
        setup = all(r.kind == "brittle" for r in members)
        ways: list[list[Insertion]] = []
        testcase = "::" in where and not where.endswith("::")  # request becomes self there
        if "request" not in block.fixtures or testcase:
            ways.append([_shared(where, block, tests, setup)])
        if "::" not in where:  # module-level tests: a fixture they request
            ways.append(_requested(where, block, tests, setup))
        for way in ways:
            checks = _verified(verifier, project, way, members)
            if checks is None:
                continue
            shared, changes = way, checks[0][1]
            requested = shared[0].edit == "fixture"
            place = "setUp" if shared[0].method == "setUp" else shared[0].test.rsplit("::")[-1]
            for result, (check, _) in zip(members, checks):
                assert result.fix is not None
                result.fix = dataclasses.replace(
                    result.fix,
                    description=f"once in {place} (shared by {len(tests)} tests): "
                    f"{result.fix.description}",
                    insertions=list(shared),
                    changes=changes,
                    verification=check,
                )
            moved.append(Hoisted(where.removesuffix("::"), tests, [r.test for r in members],
                                 place, requested))  # fmt: skip
            break
    return moved


def _verified(
    verifier: Verifier, project: Path, way: list[Insertion], members: Sequence[FixResult]
) -> Optional[list[tuple[Verification, dict[str, tuple[str, str]]]]]:
    """Each member's verification of the shared ``way`` (with its changes), or None when
    it cannot be written or does not verify for one of them."""
    try:
        changes = apply_insertions(project, way)
    except UsageError:
        return None
    checks = []
    for i, result in enumerate(members):
        assert result.target is not None
        check = verifier.verify(changes, result.target, orders_only=i > 0)
        if not check.ok:
            return None
        checks.append((check, changes))
    return checks
