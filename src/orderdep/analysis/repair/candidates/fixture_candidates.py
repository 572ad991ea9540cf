"""Fixes where the shared state lives in fixtures (the ``fixture`` strategy and more).

``narrow``
    A victim and its polluter share a class-, module-, package- or session-scoped fixture
    of the project: the polluter changes the object (a dict, a graph, a file the fixture
    created) and the victim gets it changed. Making the fixture function-scoped (with the
    wide fixtures of the closure that request it, which pytest would refuse otherwise)
    gives each test its own. Needs no debugger: it is found from the source.
``autouse``
    An autouse fixture in the ``conftest.py`` of the directory holding the victim and
    its polluters, which saves the polluted root before every test and puts it back
    after it: every test there then cleans up after itself.
``setup_function``
    The same for xunit's ``setup_module`` (a file it writes, a table it fills): a
    ``setup_function`` calling it makes it run before every test of the module.
``setUpClass`` again
    The same for a ``unittest.TestCase``'s ``setUpClass`` (an object it builds once for
    the class, which a test mutates): its ``setUp`` calls ``self.setUpClass()``.
``polluter fixture``
    The polluter changes the root through a fixture of the project (in its body or in
    its teardown): the fixture saves the root first and puts it back when it ends.

Each candidate is verified like every other before it is offered.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from orderdep.analysis.repair.candidates.candidates import Candidate, short_name
from orderdep.analysis.repair.candidates.fixture_defs import WIDE_SCOPES, FixtureDef, FixtureIndex
from orderdep.analysis.repair.candidates.guard_statements import guard_statements, key_guard
from orderdep.analysis.repair.candidates.sources import requested_fixtures
from orderdep.analysis.repair.locate.module_names import ModuleNames, module_name_for
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.write.patches import Insertion, function_path, insertion
from orderdep.analysis.repair.write.testcase_bases import plain_bases
from orderdep.analysis.repair.write.unittest_patches import testcase_methods
from orderdep.core.report import ODFinding

# roots an autouse fixture cannot save (a fixture's value needs the fixture itself)
NOT_AUTOUSE = ("fixture", "other")


def polluters_of(finding: ODFinding) -> list[str]:
    return list(
        dict.fromkeys([*finding.polluters, *(m for g in finding.polluter_groups for m in g)])
    )


def _dependents(target: FixtureDef, closure: Sequence[FixtureDef]) -> list[FixtureDef]:
    """``target`` and the wide fixtures of ``closure`` that request it, directly or not."""
    out = [target]
    changed = True
    while changed:
        changed = False
        for d in closure:
            if d not in out and d.scope in WIDE_SCOPES and any(o.name in d.params for o in out):
                out.append(d)
                changed = True
    return out


def narrow_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """Make a wide fixture the victim shares with a polluter function-scoped."""
    index = FixtureIndex(project)
    victim = finding.test
    mine = index.closure(victim, requested_fixtures(project, victim))
    out: list[Candidate] = []
    for polluter in polluters_of(finding):
        theirs = index.closure(polluter, requested_fixtures(project, polluter))
        shared = [d for d in mine if d in theirs and d.scope in WIDE_SCOPES]
        for fixture in shared:
            narrowed = _dependents(fixture, mine)
            why = (
                f"Function scope (was {fixture.scope}): {short_name(polluter)} changes the "
                f"value; {short_name(victim)} needs a fresh one."
            )
            ins = [
                Insertion(d.node_id, (), comment=why if d is fixture else None, edit="narrow")
                for d in narrowed
            ]
            for i, d in enumerate(narrowed[1:], 1):  # pytest refuses a wider requester
                note = f"Function scope (was {d.scope}): it requests fixture {fixture.name}."
                ins[i] = Insertion(d.node_id, (), comment=note, edit="narrow")
            names = ", ".join(d.name for d in narrowed)
            if any(c.description.endswith(f" {names}") for c in out):
                continue
            out.append(Candidate("fixture", f"narrows the scope of fixture {names}", ins))
    return out


def fixture_slug(root: RootInfo) -> str:
    """The name of the autouse fixture restoring ``root`` (``_restore_<what>``)."""
    text = root.var or root.path or ".".join(root.attrs) or root.name.partition(":")[2]
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text or root.kind).strip("_").lower()
    return f"_restore_{text or root.kind}"


def group_slug(roots: Sequence[RootInfo]) -> str:
    """The name of one autouse fixture restoring several roots: their common module or
    owner (``_restore_<module>_state``), else the first root's name and a count."""
    names = [r.name.partition(":")[2] if ":" in r.name else r.name for r in roots]
    parts = [n.split(".") for n in names]
    common: list[str] = []
    for column in zip(*parts):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    if common and len(common) < min(len(p) for p in parts):
        text = re.sub(r"[^0-9a-zA-Z]+", "_", ".".join(common)).strip("_").lower()
        return f"_restore_{text}_state"
    return f"{fixture_slug(roots[0])}_and_{len(roots) - 1}_more"


def _common_dir(files: Sequence[str]) -> str:
    dirs = [posixpath.dirname(f) for f in files]
    common = posixpath.commonpath(dirs) if all(dirs) else ""
    return common


def conftest_for(project: Path, finding: ODFinding) -> tuple[str, ModuleNames]:
    """The ``conftest.py`` of the deepest directory holding the victim and its polluters
    (it may not exist yet), and what it binds."""
    files = [t.split("::", 1)[0] for t in [finding.test, *polluters_of(finding)]]
    folder = _common_dir(files)
    conftest = posixpath.join(folder, "conftest.py") if folder else "conftest.py"
    try:
        source = (project / conftest).read_text(encoding="utf-8")
    except OSError:
        source = ""
    return conftest, ModuleNames.parse(source, module_name_for(project, conftest))


def autouse_candidates(
    project: Path, finding: ODFinding, roots: Sequence[RootInfo], what: str
) -> list[Candidate]:
    """An autouse fixture in the nearest common ``conftest.py`` of the victim and its
    polluters that saves each root before every test and puts it back after it; for
    environment variables the victim needs unset, one that unsets them before every test
    (``monkeypatch.delenv(K, raising=False)``, one line each)."""
    conftest, names = conftest_for(project, finding)
    per_root = []
    for root in roots:
        alts = guard_statements(root, names, None) if root.kind not in NOT_AUTOUSE else []
        if not alts:
            return []
        per_root.append((root, alts))
    out: list[Candidate] = []
    comment = f"Put {what} back after every test ({short_name(finding.test)} needs it)."
    name = fixture_slug(roots[0]) if len(roots) == 1 else group_slug(roots)
    keys = [key_guard(root, names, None) for root, _ in per_root]
    for i in range(max((len(a) for _, a in per_root), default=0)):
        # one fixture for every root: the roots a victim needs back are one state
        chosen = [alts[min(i, len(alts) - 1)] for _, alts in per_root]
        stmts = list(dict.fromkeys(s for st, _ in chosen for s in st))
        fixtures = list(dict.fromkeys(f for _, fx in chosen for f in fx))
        base = insertion(f"{conftest}::{name}", stmts, fixtures)
        ins = Insertion(base.test, base.statements, base.fixtures, None, comment, edit="autouse")
        # some keys of a container, when the whole of it is offered too
        partial = any(c == k and len(a) > 1 for c, k, (_, a) in zip(chosen, keys, per_root))
        out.append(
            Candidate(
                "fixture", f"autouse fixture in {conftest} restores {what}", [ins],
                keys_only=partial,
            )
        )  # fmt: skip
    if len(roots) == 1 and roots[0].kind == "cwd":
        # saved before each module and put back after it: a module's set-up that moves
        # elsewhere (``setup_module``) runs before a function's fixture could save it, and
        # its own tests need the move
        stmts = [
            "import os",
            "saved = os.getcwd()",
            "request.addfinalizer(lambda saved=saved: os.chdir(saved))",
        ]
        said = (
            "Put the working directory back after each module "
            f"({short_name(finding.test)} needs it)."
        )
        base = insertion(f"{conftest}::{name}_per_module", stmts, ["request"])
        ins = Insertion(
            base.test, base.statements, base.fixtures, None, said, edit="module_autouse"
        )
        out.append(
            Candidate(
                "fixture", f"module-scoped autouse fixture in {conftest} restores {what}", [ins]
            )
        )
    unset = [r.var for r in roots if r.kind == "env" and r.var and not r.passing.present]
    if roots and len(unset) == len(roots):  # one line each: unset before every test
        stmts = [f"monkeypatch.delenv({var!r}, raising=False)" for var in unset]
        said = f"Unset {what} before every test ({short_name(finding.test)} needs it)."
        base = insertion(f"{conftest}::{name}", stmts, ["monkeypatch"])
        ins = Insertion(base.test, base.statements, base.fixtures, None, said, edit="autouse")
        out.append(Candidate("fixture", f"autouse fixture in {conftest} unsets {what}", [ins]))
    return out


def polluter_fixture_candidates(
    project: Path, finding: ODFinding, roots: Sequence[RootInfo], what: str
) -> list[Candidate]:
    """The polluters' own function-scoped fixtures save the roots and put them back when
    they end (after their teardown, which may be what changes the roots)."""
    index = FixtureIndex(project)
    out: list[Candidate] = []
    for polluter in polluters_of(finding):
        for fx in index.closure(polluter, requested_fixtures(project, polluter)):
            if fx.scope != "function" or fx.autouse:
                continue
            try:
                source = (project / fx.file).read_text(encoding="utf-8")
            except OSError:
                continue
            names = ModuleNames.parse(source, module_name_for(project, fx.file))
            alts = [guard_statements(r, names, None) for r in roots if r.kind != "fixture"]
            if not alts or any(not a for a in alts) or len(alts) != len(roots):
                continue
            # the change is the polluter's (its body, or this fixture's set-up)
            comment = (
                f"Put {what} back when each test using this fixture ends "
                f"({short_name(finding.test)} needs it)."
            )
            for i in range(max(len(a) for a in alts)):
                stmts = [s for a in alts for s in a[min(i, len(a) - 1)][0]]
                fixtures = [f for a in alts for f in a[min(i, len(a) - 1)][1]]
                base = insertion(fx.node_id, stmts, fixtures)
                ins = Insertion(base.test, base.statements, base.fixtures, None, comment)
                desc = f"makes fixture {fx.name} (of {short_name(polluter)}) undo its change"
                out.append(Candidate("polluter", desc, [ins]))
    return out


def _module_setups(source: str) -> tuple[bool, Optional[str]]:
    """Whether the module has xunit's ``setup_module`` (defined or imported), and how it
    binds ``setup_function`` ("def", "import" or None)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False, None
    bound: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound[node.name] = "def"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = "import"
    return "setup_module" in bound, bound.get("setup_function")


def setup_function_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """xunit's ``setup_module`` run before every test (through ``setup_function``) when
    the victim and a polluter share the test module it sets up once."""
    file = finding.test.split("::", 1)[0]
    if not any(p.split("::", 1)[0] == file for p in polluters_of(finding)):
        return []
    try:
        source = (project / file).read_text(encoding="utf-8")
    except OSError:
        return []
    has_setup, setup_function = _module_setups(source)
    if not has_setup or setup_function == "import":
        return []
    polluter = next(p for p in polluters_of(finding) if p.split("::", 1)[0] == file)
    comment = (
        f"Run setup_module before every test, not once: {short_name(polluter)} changes what "
        f"it sets up; {short_name(finding.test)} needs it fresh."
    )
    ins = Insertion(f"{file}::setup_function", ("setup_module()",), (), None, comment,
                    edit="setup_function")  # fmt: skip
    return [Candidate("fixture", "runs setup_module before every test", [ins])]


def setup_class_candidates(project: Path, finding: ODFinding) -> list[Candidate]:
    """A ``unittest.TestCase``'s ``setUpClass`` run again before each test (from its
    ``setUp``) when the victim and a polluter are tests of that class: what it built once
    for the class (a shared object a test mutates) is fresh for every test."""
    file, classes, _ = function_path(finding.test)
    if not classes:
        return []
    mine = "::".join([file, *classes]) + "::"
    polluter = next((p for p in polluters_of(finding) if p.startswith(mine)), None)
    if polluter is None:
        return []
    try:
        source = (project / file).read_text(encoding="utf-8")
        methods = testcase_methods(source, classes, plain_bases(project, file))
    except OSError:
        return []
    if methods is None or "setUpClass" not in methods:
        return []
    comment = (
        f"Run setUpClass before every test, not once: {short_name(polluter)} changes what "
        f"it sets up; {short_name(finding.test)} needs it fresh."
    )
    ins = Insertion(finding.test, ("self.setUpClass()",), (), "setUp", comment)
    what = "runs setUpClass before every test of the class"
    return [Candidate("fixture", what, [ins], at_set_up=True)]
