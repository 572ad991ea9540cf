"""Candidate patches before verification, and the orders a fix must pass in."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from orderdep.analysis.repair.candidates.guard_statements import guard_statements
from orderdep.analysis.repair.candidates.sources import read_function
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.module_roots import package_of
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.verify.verify import Target
from orderdep.analysis.repair.write.patches import Insertion, function_path, insertion
from orderdep.analysis.repair.write.unittest_patches import placements
from orderdep.core.report import ODFinding
from orderdep.errors import UsageError

# Orders one verification runs for the OD test (each once; most are two tests long): enough
# for [p, t] with every polluter a victim has, which a fix claims to cover.
MAX_ORDERS = 40


@dataclass
class Candidate:
    strategy: str
    description: str
    insertions: list[Insertion]
    leaks: bool = False  # sets state that outlives the test (a scoped twin ranks first)
    roots: tuple[str, ...] = ()  # the roots it resets, when not all the culprits
    # a polluter's own clean-up while the search for polluters did not finish: tests it
    # did not reach may leave the same state, and a fix at the victim covers them too
    partial: bool = False
    # a new object in place of the polluted one (its module's initializer made again):
    # after an in-place reset of the same standing, which code holding the old one sees
    remade: bool = False
    # a fixture for every test putting back only the keys of a container one victim needs,
    # while one putting back the whole container (which the victims of its other keys
    # need too) is offered: after it, at any size
    keys_only: bool = False
    # the set-up that made the shared object runs again before every test (``setUpClass``
    # from ``setUp``), or a set-up calls the base class's it overrides: a fix where the
    # state is made, as a polluter's own clean-up is
    at_set_up: bool = False


def _dedupe(orders: Sequence[Sequence[str]]) -> list[list[str]]:
    out: dict[tuple[str, ...], None] = {}
    for o in orders:
        if o:
            out.setdefault(tuple(o), None)
    return [list(o) for o in list(out)[:MAX_ORDERS]]


def _cut(order: Sequence[str], test: str) -> list[str]:
    return list(order[: order.index(test) + 1]) if test in order else []


def target_for(finding: ODFinding, kind: str, failing: list[str], passing: list[str]) -> Target:
    """The orders a fix for ``finding`` must pass in (every known polluter, the recorded ones)."""
    t = finding.test
    if kind == "victim":
        fails = [failing, *([p, t] for p in finding.polluters)]
        fails += [[*g, t] for g in finding.polluter_groups]
        fails.append(_cut(finding.failing_order, t))
        passes = [passing, _cut(finding.passing_order, t)]
    else:
        fails = [failing, _cut(finding.failing_order, t)]
        passes = [passing, *([s, t] for s in finding.state_setters)]
        passes += [[*g, t] for g in finding.state_setter_groups]
        passes.append(_cut(finding.passing_order, t))
    return Target(t, _dedupe(fails), _dedupe(passes))


def polluter_candidates(
    project: Path, finding: ODFinding, roots: list[RootInfo], single: bool, dbg: DebugResult
) -> list[Candidate]:
    """Candidates making each polluter undo its write to the roots when it ends."""
    polluters = list(
        dict.fromkeys([*finding.polluters, *(m for g in finding.polluter_groups for m in g)])
    )
    if not polluters and len(dbg.failing_order) == 2:
        polluters = dbg.failing_order[:1]
    out: list[Candidate] = []
    if not polluters:  # which test before it pollutes is unknown: classify first
        return out
    for root in roots if single else [None]:
        chosen = [root] if root is not None else roots
        alternatives = 1
        per_polluter = []
        sources: list[tuple[str, str]] = []
        for p in polluters:
            try:
                fs = read_function(project, p)
            except UsageError:
                return out
            if fs.file == dbg.test.split("::", 1)[0] and dbg.test_module:
                fs.module = dbg.test_module
            names = ModuleNames.parse(fs.source, fs.module)
            alts = [guard_statements(r, names, fs.module) for r in chosen]
            if any(not a for a in alts):
                break  # no way to undo this root: the next root (one at a time), or none
            alternatives = max(alternatives, *(len(a) for a in alts))
            per_polluter.append((p, alts))
            sources.append((p, fs.source))
        if len(per_polluter) < len(polluters):
            continue
        # where each polluter writes: its body, or its TestCase's setUp or setUpClass
        places = [placements(source, function_path(p)[1], polluter=True) for p, source in sources]
        for place in range(max(len(pl) for pl in places)):
            for i in range(alternatives):
                ins = []
                for (p, alts), pl in zip(per_polluter, places):
                    stmts = [s for a in alts for s in a[min(i, len(a) - 1)][0]]
                    fixtures = [f for a in alts for f in a[min(i, len(a) - 1)][1]]
                    method = pl[min(place, len(pl) - 1)]
                    ins.append(insertion(p, stmts, fixtures, method))
                where = {i.method for i in ins if i.method}
                desc = (
                    f"makes polluter(s) {', '.join(polluters)} undo their change to "
                    f"{', '.join(friendly(r.name) for r in chosen)}"
                    + (f" (in {', '.join(sorted(where))})" if where else "")
                )
                out.append(Candidate("polluter", desc, ins, roots=tuple(r.name for r in chosen)))
    return out


MAX_SIBLINGS = 6
MAX_ENV_SIBLINGS = 16


def sibling_groups(
    roots: Sequence[RootInfo], differing: Sequence[RootInfo]
) -> list[list[RootInfo]]:
    """State set together with each root: for a class attribute, every attribute of the
    same class that differs too (2 to :data:`MAX_SIBLINGS`); for an environment variable,
    every variable that differs (2 to :data:`MAX_ENV_SIBLINGS`: a test configuring
    through the environment sets several, and later tests may clean up only all or none)."""
    out: list[list[RootInfo]] = []
    for root in roots:
        if root.kind == "env":
            group = [d for d in differing if d.kind == "env"]
            if 1 < len(group) <= MAX_ENV_SIBLINGS and group not in out:
                out.append(group)
        if root.kind != "classattr" or not root.module or len(root.attrs) < 2:
            continue
        group = [
            d
            for d in differing
            if d.kind == "classattr" and d.module == root.module and d.attrs[:-1] == root.attrs[:-1]
        ]
        if 1 < len(group) <= MAX_SIBLINGS and group not in out:
            out.append(group)
    return out


# -- ranking and verification -----------------------------------------------------------
# a root-cause fix spread over this many places reads worse than one fixture or one test
MANY_PLACES = 3


def place_count(cand: Candidate) -> int:
    """The functions ``cand`` changes or adds (a reader visits each)."""
    return len({(i.file, i.test.split("[", 1)[0], i.method, i.edit) for i in cand.insertions})


def root_cause_rank(cand: Candidate) -> int:
    """0 for a fix at the root cause (a polluter or its fixture cleans up after itself, a
    shared fixture is no longer shared, a class's set-up runs for every test) in fewer
    than :data:`MANY_PLACES` places, 1 for an autouse fixture making every test of a
    directory clean up, 2 for a change to the OD test, 3 for a root-cause fix copied into
    many places (a guard in each of many polluters): a maintainer reads one fixture or one
    test before a dozen copies. A polluter's clean-up while its victim's polluters were not all found (``partial``) is
    3 too: the state it undoes may come from a test the search did not reach."""
    edits = {i.edit for i in cand.insertions}
    if cand.strategy == "polluter" and cand.partial:
        return 3
    if cand.strategy == "polluter" or cand.at_set_up or edits & {"narrow", "setup_function"}:
        return 0 if place_count(cand) < MANY_PLACES else 3
    return 1 if edits & {"autouse", "module_autouse"} else 2


def combine(
    strategy: str,
    test: str,
    roots: list[RootInfo],
    single: bool,
    make: Callable[[RootInfo], list[tuple[list[str], list[str]]]],
    verb: str,
) -> list[Candidate]:
    """Candidates from per-root alternatives: each root alone, or all roots together."""
    out: list[Candidate] = []
    if single:
        for root in roots:
            for stmts, fixtures in make(root):
                ins = [insertion(test, stmts, fixtures)]
                out.append(Candidate(strategy, f"{verb} {root.name}", ins, roots=(root.name,)))
        return out
    alts = [make(r) for r in roots]
    if any(not a for a in alts):
        return out
    for i in range(max(len(a) for a in alts)):
        stmts = [s for a in alts for s in a[min(i, len(a) - 1)][0]]
        fixtures = [f for a in alts for f in a[min(i, len(a) - 1)][1]]
        names = ", ".join(r.name for r in roots)
        ins = [insertion(test, stmts, fixtures)]
        out.append(Candidate(strategy, f"{verb} {names}", ins, roots=tuple(r.name for r in roots)))
    return out


def placed(cand: Candidate, method: str) -> Candidate:
    """``cand`` with its statements in ``method`` of the test's class instead."""
    return dataclasses.replace(
        cand,
        description=f"{cand.description} (in {method})",
        insertions=[dataclasses.replace(i, method=method) for i in cand.insertions],
    )


def short_name(test: str) -> str:
    """A test's function name with its class (``TestA.test_b``), for comments."""
    _, classes, name = function_path(test)
    return ".".join([*classes, name])


def friendly(root: str) -> str:
    """A root's name as a comment says it: ``fixture graph``, ``$HOME``, ``the cache of
    app.settings``."""
    package = package_of(root)
    if package is not None:
        return f"the {package} modules in sys.modules"
    kind, _, rest = root.partition(":")
    if kind == "fixture":
        return f"fixture {rest.rsplit('::', 1)[-1]}"
    if kind == "env":
        return f"${rest}"
    if kind == "cache":
        return f"the cache of {rest}"
    if kind == "file":
        return f"file {rest}"
    if kind == "logging":
        return "the root logger" if rest == "root" else f"logger {rest}"
    if kind == "setting":
        return f"the setting {rest}"
    return root


# A pair that leaves a name absent and has monkeypatch delete it again at the end.
_ABSENT_PAIRS = (
    (re.compile(r"monkeypatch\.setattr\((.+), ('\w+'), None, raising=False\)$"),
     "monkeypatch.delattr({0}, {1})"),
    (re.compile(r"monkeypatch\.setenv\(('\w+')(), ''\)$"), "monkeypatch.delenv({0})"),
)  # fmt: skip


def _absent_note(ins: Insertion) -> str:
    """Why a set-then-delete pair is there (a reader would take it for a no-op): the
    name did not exist before, and monkeypatch deletes at the end only what it set."""
    names = []
    for first, second in zip(ins.statements, ins.statements[1:]):
        for pattern, undo in _ABSENT_PAIRS:
            m = pattern.match(first.strip())
            if m and second.strip() == undo.format(*m.groups()):
                names.append(m.group(2 if m.group(2) else 1).strip("'"))
    if not names:
        return ""
    return (
        f" {', '.join(names)} did not exist before: set then deleted, so that monkeypatch"
        " deletes it again at the end."
    )


def comment_for(
    cand: Candidate, ins: Insertion, finding: ODFinding, kind: str, roots: Sequence[str]
) -> str:
    """One line for the patch saying what state it resets and why."""
    return _comment_text(cand, ins, finding, kind, roots) + _absent_note(ins)


def state_names(roots: Sequence[str], test: str) -> str:
    """The state ``roots`` name, as a comment in ``test``'s module says it: that module's
    own names bare, and past three names the first and how many more (the statements
    below the comment name each)."""
    parts = test.split("::", 1)[0].removesuffix(".py").split("/")
    own = [".".join(parts[k:]) + "." for k in range(len(parts))]  # as imported from anywhere
    names = []
    for root in roots:
        name = friendly(root)
        prefix = next((p for p in own if name.startswith(p) and len(name) > len(p)), "")
        if not prefix and f".{own[0]}" in name:
            # its whole path, imported under a package above the rootdir (proj.tests.test_a)
            prefix = name[: name.index(f".{own[0]}") + 1 + len(own[0])]
        names.append(name[len(prefix) :])
    if len(names) > 3:
        return f"{names[0]} and {len(names) - 1} more"
    return ", ".join(names) or "shared state"


def _comment_text(
    cand: Candidate, ins: Insertion, finding: ODFinding, kind: str, roots: Sequence[str]
) -> str:
    what = state_names(cand.roots or roots, ins.test)
    # a group of polluters (or an order the set check ran) names no one test
    partners = finding.polluters or [g[0] for g in finding.polluter_groups if len(g) == 1]
    if kind == "brittle":
        partners = finding.state_setters or [m for g in finding.state_setter_groups for m in g]
    first = short_name(partners[0]) if partners else ""
    shared = ins.method == "setUp" or (ins.edit == "autouse" and cand.strategy == "polluter")
    if ins.test != finding.test and shared:  # polluters of one class or module
        victim = short_name(finding.test)
        return f"Undo each test's change to {what} when it ends ({victim} needs it)."
    if ins.test != finding.test:  # a polluter's own clean-up
        return (
            f"Undo this test's change to {what} when it ends ({short_name(finding.test)} needs it)."
        )
    if kind == "brittle":
        # its changes are put back when the test ends: it does not leak, and it undoes
        # them (monkeypatch, a finaliser); a reset call such as rebuild_index() does not
        undone = not cand.leaks and any(
            marker in st
            for i in cand.insertions
            for st in i.statements
            for marker in ("monkeypatch.", "addfinalizer(", "addCleanup(", "addClassCleanup(")
        )
        return (
            "Set up the state this test needs"
            + (f" (as {first} does)" if first else "")
            + (", undone when it ends." if undone else ".")
        )
    earlier = f"an earlier test ({first})" if first else "an earlier test"
    if cand.strategy == "cleaner":
        return f"Clean up what {earlier} may leave behind."
    return f"Reset {what}: {earlier} may leave it changed."


def with_comments(
    cand: Candidate, finding: ODFinding, kind: str, roots: Sequence[str]
) -> Candidate:
    """``cand`` with a comment on each of its insertions (see :func:`comment_for`)."""
    insertions = [
        i
        if i.comment
        else dataclasses.replace(i, comment=comment_for(cand, i, finding, kind, roots))
        for i in cand.insertions
    ]
    return dataclasses.replace(cand, insertions=insertions)
