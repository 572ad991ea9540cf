"""The dependencies file (schema ``orderdep.deps/1``): test dependencies to respect.

Layout::

    {"schema": "orderdep.deps/1",
     "dependencies": [
       {"test": B, "kind": "positive", "dependee": S},
       {"test": B, "kind": "positive", "dependee": S1, "group": [S1, S2]},
       {"test": B, "kind": "positive", "dependee": S2, "group": [S1, S2]},
       {"test": V, "kind": "negative", "dependee": P},
       {"test": V, "kind": "negative", "dependee": P1, "group": [P1, P2]},
       {"test": V, "kind": "negative", "dependee": P2, "group": [P1, P2]}]}

The two kinds are 002 §3.1's: a *positive* dependency ⟨dependee → test⟩ says ``test``
passes only if ``dependee`` ran before it (a brittle and its state-setter); a *negative*
dependency ⟨dependee ↛ test⟩ says ``test`` must not run after ``dependee`` (a victim and
its polluter). The dependee and the test need not be adjacent.

Entries carrying the same ``"group"`` (the member ids, in the order they must run) belong
together: there is one entry per member, and they are one requirement, not several.

**Positive dependencies of one test are alternatives.** A brittle passes when *any one*
of its state-setters ran before it (004 §4.1 finds each by running ``[s, b]`` alone), so
the consumer must satisfy only one *alternative* per test, where an alternative is either

* one entry without ``"group"``: that dependee ran before the test, or
* all entries sharing one ``"group"``: every member ran before the test, in group order.

:func:`positive_alternatives` lists them per test in file order. An ``enhanceOrder``
implementation (002 Fig. 2) picks one alternative per test (preferably one whose tests are
already in the order being enhanced, else the first), and then treats its members as that
test's positive dependencies P. Requiring every alternative, 002's literal reading, is
also safe but may pull unnecessary tests into a selected order.

**Negative dependencies are all required**, with groups as one constraint each: a victim
fails after a polluter group only when every member ran before it, so running the victim
before any one member satisfies the group (:func:`negative_constraints`). Treating each
group entry as its own negative dependency is safe, only stricter. Cleaners are not
recorded: the file takes the conservative view that a victim never runs after a polluter.

:func:`load_deps` validates a file written by hand as well as by :func:`save_deps`: schema,
kinds, keys, unknown ids (with close suggestions), self-dependencies, incomplete groups
and cycles among positive dependencies, which no order could satisfy.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from orderdep.core.jsonfile import load_json_file, write_text_file
from orderdep.core.report import CLASSIFY_COMMAND, Report
from orderdep.errors import ReportError

SCHEMA = "orderdep.deps/1"
DepKind = Literal["positive", "negative"]
DEP_KINDS: tuple[str, ...] = ("positive", "negative")
# The command that writes a dependencies file from a classified report, and where.
DEPS_COMMAND = "orderdep deps"
DEFAULT_DEPS = "orderdep-deps.json"

PathLike = Union[str, "os.PathLike[str]"]
_ENTRY_KEYS = ("test", "kind", "dependee", "group")


@dataclass(frozen=True)
class Dependency:
    """One entry: ``test`` must run after (positive) / not after (negative) ``dependee``."""

    test: str
    kind: DepKind
    dependee: str
    group: Optional[tuple[str, ...]] = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"test": self.test, "kind": self.kind, "dependee": self.dependee}
        if self.group is not None:
            out["group"] = list(self.group)
        return out

    def sort_key(self) -> tuple[str, str, tuple[str, ...], int, str]:
        # Group entries stay together and in the group's order.
        group = self.group or ()
        position = group.index(self.dependee) if self.dependee in group else 0
        return (self.test, self.kind, group, position, self.dependee)


def deps_from_report(report: Report, *, skip_unclassified: bool = False) -> list[Dependency]:
    """The dependencies a classified report implies, in the report's suite order.

    Victims give negative dependencies on each polluter and each polluter-group member;
    brittles give positive dependencies (alternatives) on each state-setter and each
    state-setter-group member. Unclassified findings are an error unless skipped.
    """
    unclassified = [f.test for f in report.od_tests if f.kind is None]
    if unclassified and not skip_unclassified:
        shown = ", ".join(repr(t) for t in unclassified[:5])
        more = f" and {len(unclassified) - 5} more" if len(unclassified) > 5 else ""
        raise ReportError(
            f"{len(unclassified)} OD test(s) are not classified yet ({shown}{more}), so "
            f"their dependencies are unknown; run `{CLASSIFY_COMMAND}` first."
        )
    index = {t: i for i, t in enumerate(report.tests)}
    out: list[Dependency] = []
    for finding in sorted(report.od_tests, key=lambda f: index.get(f.test, len(index))):
        if finding.kind == "victim":
            kind: DepKind = "negative"
            singles, groups = finding.polluters, finding.polluter_groups
        elif finding.kind == "brittle":
            kind = "positive"
            singles, groups = finding.state_setters, finding.state_setter_groups
        else:
            continue
        for dependee in sorted(singles, key=lambda t: index.get(t, len(index))):
            out.append(Dependency(finding.test, kind, dependee))
        for group in groups:
            members = tuple(group)
            out.extend(Dependency(finding.test, kind, m, members) for m in members)
    return _dedupe(out)


def dump_deps(deps: Iterable[Dependency]) -> str:
    """The file text: entries sorted (groups kept together, in order), stable JSON."""
    entries = [d.to_json() for d in sorted(_dedupe(deps), key=Dependency.sort_key)]
    return json.dumps({"schema": SCHEMA, "dependencies": entries}, indent=2) + "\n"


def save_deps(path: PathLike, deps: Iterable[Dependency]) -> None:
    write_text_file(path, dump_deps(deps), "dependencies file", "--output PATH")


def load_deps(path: PathLike, known_ids: Optional[Collection[str]] = None) -> list[Dependency]:
    """Load and validate a dependencies file; with ``known_ids``, every id must be one."""
    source = f"dependencies file {str(path)!r}"
    data = load_json_file(
        path,
        "dependencies file",
        f"write one from a classified report with `{DEPS_COMMAND}`.",
    )
    return parse_deps(data, source=source, known_ids=known_ids)


def parse_deps(
    data: Any, *, source: str = "dependencies", known_ids: Optional[Collection[str]] = None
) -> list[Dependency]:
    """Validate the JSON object of a dependencies file (see :func:`load_deps`)."""
    if not isinstance(data, dict):
        raise ReportError(f"{source} must hold a JSON object, got {data!r}.")
    if data.get("schema") != SCHEMA:
        raise ReportError(
            f"{source} has schema {data.get('schema')!r}, but this orderdep reads "
            f'{SCHEMA!r}; set "schema": {SCHEMA!r} or re-create it with `{DEPS_COMMAND}`.'
        )
    extra = sorted(set(data) - {"schema", "dependencies"})
    if extra:
        raise ReportError(
            f"{source} has unknown top-level key(s) {extra!r}; only 'schema' and "
            "'dependencies' are allowed."
        )
    entries = data.get("dependencies")
    if not isinstance(entries, list):
        raise ReportError(f"{source}: 'dependencies' must be a list of entries, got {entries!r}.")
    deps = _dedupe(_parse_entry(e, f"{source}: dependencies[{i}]") for i, e in enumerate(entries))
    if known_ids is not None:
        _check_known(deps, known_ids, source)
    _check_groups_complete(deps, source)
    _check_no_contradiction(deps, source)
    _check_no_positive_cycle(deps, source)
    return deps


def positive_alternatives(deps: Iterable[Dependency]) -> dict[str, list[tuple[str, ...]]]:
    """Per test, its positive alternatives (a single dependee or a group's members in order).

    The test needs only ONE of them to have run before it.
    """
    return _requirements(deps, "positive")


def negative_constraints(deps: Iterable[Dependency]) -> dict[str, list[tuple[str, ...]]]:
    """Per test, its negative constraints: it must not run after ALL members of any one.

    A single polluter is a one-member constraint; all constraints must hold.
    """
    return _requirements(deps, "negative")


# --- internals -------------------------------------------------------------------------


def _requirements(deps: Iterable[Dependency], kind: str) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for d in deps:
        if d.kind != kind:
            continue
        item = d.group if d.group is not None else (d.dependee,)
        items = out.setdefault(d.test, [])
        if item not in items:
            items.append(item)
    return out


def _dedupe(deps: Iterable[Dependency]) -> list[Dependency]:
    return list(dict.fromkeys(deps))


def _parse_entry(entry: Any, where: str) -> Dependency:
    if not isinstance(entry, dict):
        raise ReportError(
            f"{where} must be an object like "
            '{"test": ..., "kind": "positive", "dependee": ...}, '
            f"got {entry!r}."
        )
    unknown = sorted(set(entry) - set(_ENTRY_KEYS))
    if unknown:
        raise ReportError(
            f"{where} has unknown key(s) {unknown!r}; allowed keys are {list(_ENTRY_KEYS)!r}."
        )
    for key in ("test", "kind", "dependee"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ReportError(
                f"{where}: {key!r} must be a non-empty string, got {entry.get(key)!r}."
            )
    test, kind, dependee = entry["test"], entry["kind"], entry["dependee"]
    if kind not in DEP_KINDS:
        raise ReportError(
            f"{where}: kind must be 'positive' (run after the dependee) or 'negative' "
            f"(do not run after the dependee), got {kind!r}."
        )
    if test == dependee:
        raise ReportError(
            f"{where}: {test!r} depends on itself; a test cannot run before or after "
            "itself, so remove this entry."
        )
    group: Optional[tuple[str, ...]] = None
    if "group" in entry:
        raw = entry["group"]
        if not isinstance(raw, list) or len(raw) < 2 or not all(isinstance(t, str) for t in raw):
            raise ReportError(
                f"{where}: 'group' must list at least two test ids, got {raw!r}; "
                "for a single dependee leave 'group' out."
            )
        if len(set(raw)) != len(raw):
            raise ReportError(f"{where}: 'group' {raw!r} names a test twice.")
        if dependee not in raw:
            raise ReportError(
                f"{where}: the dependee {dependee!r} is not a member of its group {raw!r}."
            )
        if test in raw:
            raise ReportError(f"{where}: {test!r} is a member of its own group {raw!r}.")
        group = tuple(raw)
    return Dependency(test, kind, dependee, group)


def _check_known(deps: Sequence[Dependency], known_ids: Collection[str], source: str) -> None:
    known = set(known_ids)
    unknown: dict[str, None] = {}
    for d in deps:
        for t in (d.test, d.dependee, *(d.group or ())):
            if t not in known:
                unknown[t] = None
    if not unknown:
        return
    choices = list(known_ids)
    lines = [f"{source} names {len(unknown)} test id(s) that are not in the suite:"]
    for t in unknown:
        close = difflib.get_close_matches(t, choices, n=3, cutoff=0.5)
        if not close:
            tail = t.rsplit("::", 1)[-1]
            close = [c for c in choices if c.rsplit("::", 1)[-1] == tail][:3]
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        lines.append(f"  {t!r}{hint}")
    lines.append("Fix or remove these entries (tests may have been renamed or deleted).")
    raise ReportError("\n".join(lines))


def _check_groups_complete(deps: Sequence[Dependency], source: str) -> None:
    present: dict[tuple[str, str, tuple[str, ...]], set[str]] = {}
    for d in deps:
        if d.group is not None:
            present.setdefault((d.test, d.kind, d.group), set()).add(d.dependee)
    for (test, kind, group), members in present.items():
        missing = [m for m in group if m not in members]
        if missing:
            raise ReportError(
                f"{source}: the {kind} group {list(group)!r} of {test!r} has no entry for "
                f"member(s) {missing!r}; add one entry per member (each with the same "
                "'group') or drop the group."
            )


def _check_no_contradiction(deps: Sequence[Dependency], source: str) -> None:
    singles = {(d.test, d.dependee, d.kind) for d in deps if d.group is None}
    for test, dependee, kind in sorted(singles):
        if kind == "positive" and (test, dependee, "negative") in singles:
            raise ReportError(
                f"{source}: {test!r} must run after {dependee!r} (positive) and must not "
                f"run after it (negative); keep only the entry that is true."
            )


def _check_no_positive_cycle(deps: Sequence[Dependency], source: str) -> None:
    # Edge test -> dependee: "test needs dependee before it". A cycle can never be met.
    needs: dict[str, list[str]] = {}
    for d in deps:
        if d.kind == "positive":
            needs.setdefault(d.test, [])
            if d.dependee not in needs[d.test]:
                needs[d.test].append(d.dependee)
    cycle = _find_cycle(needs)
    if cycle:
        steps = ", ".join(f"{a!r} needs {b!r} before it" for a, b in zip(cycle, cycle[1:]))
        raise ReportError(
            f"{source}: positive dependencies form a cycle that no order can satisfy: "
            f"{steps}. Remove one of these entries."
        )


def _find_cycle(graph: dict[str, list[str]]) -> list[str]:
    """A cycle ``[a, b, ..., a]`` in ``graph`` if there is one, else ``[]`` (iterative DFS)."""
    white, grey, black = 0, 1, 2
    color: dict[str, int] = {}
    for root in graph:
        if color.get(root, white) != white:
            continue
        path: list[str] = [root]
        stack = [iter(graph.get(root, ()))]
        color[root] = grey
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                color[path.pop()] = black
                stack.pop()
                continue
            state = color.get(nxt, white)
            if state == grey:
                return [*path[path.index(nxt) :], nxt]
            if state == white:
                color[nxt] = grey
                path.append(nxt)
                stack.append(iter(graph.get(nxt, ())))
    return []
