"""A pytest-xdist scheduler that keeps each dependency group on one worker (002 §5.1).

xdist's load modes hand tests to whichever worker is free, so a brittle may run on a
worker its state-setter never ran on, and a victim on the worker that just ran its
polluter. Here every dependency group (:func:`orderdep.core.parallelization.dependency_groups`
over the collection) is one work unit, sent whole to one worker in collection order.
Workers collect with the orderdep plugin active, so their collection already is the
enhanced order and each unit runs in it.

The scheduler is xdist's :class:`~xdist.scheduler.LoadScopeScheduling` with a different
answer to "which unit does this test belong to": tests outside any group keep the unit
the chosen ``--dist`` mode would give them (the test itself for ``load``/``worksteal``,
its class or module for ``loadscope``, its file for ``loadfile``, its ``xdist_group`` for
``loadgroup``), and a group is merged with the units of its members, so both promises
hold. Units are handed out largest first (xdist's ``--loadscope-reorder`` default).
``--dist each`` runs everything everywhere and needs no help.

Like xdist's own schedulers this works on node-id strings only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import pytest
from xdist.scheduler import LoadScopeScheduling

from orderdep.core.depsfile import Dependency
from orderdep.core.parallelization import dependency_groups

#: ``--dist`` modes this scheduler replaces.
LOAD_MODES = ("load", "loadscope", "loadfile", "loadgroup", "worksteal")
_GROUP_PREFIX = "orderdep-group:"


def _group_at(nodeid: str) -> int:
    """Where the ``@group`` suffix xdist's ``loadgroup`` adds to ids starts (-1: none).

    The suffix follows the last ``]`` and the last ``::``: an ``@`` inside parameters or
    in a directory name is not one.
    """
    at = nodeid.rfind("@")
    return at if at > max(nodeid.rfind("]"), nodeid.rfind("::")) else -1


def plain_id(nodeid: str, mode: str) -> str:
    """``nodeid`` without the ``@group`` suffix ``loadgroup`` adds (ids in deps files lack it)."""
    at = _group_at(nodeid) if mode == "loadgroup" else -1
    return nodeid[:at] if at >= 0 else nodeid


def base_scope(nodeid: str, mode: str) -> str:
    """The work unit xdist's ``mode`` puts ``nodeid`` in (same rules as its schedulers)."""
    if mode == "loadscope":
        return nodeid.rsplit("::", 1)[0]
    if mode == "loadfile":
        return nodeid.split("::", 1)[0]
    if mode == "loadgroup" and _group_at(nodeid) >= 0:
        return nodeid[_group_at(nodeid) + 1 :]
    return nodeid


def unit_scopes(collection: Sequence[str], deps: Sequence[Dependency], mode: str) -> dict[str, str]:
    """Node id -> work-unit name: base scopes merged with dependency groups (union-find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    scope = {t: base_scope(t, mode) for t in collection}
    # Groups are found on the ids the dependencies name, then mapped back to the ids
    # xdist reports (with their ``@group`` suffixes under ``loadgroup``).
    reported = {plain_id(t, mode): t for t in collection}
    plain = list(reported)
    grouped: list[str] = []
    for group in dependency_groups(plain, deps, all_tests=plain):
        if len(group) < 2:
            continue
        first, *rest = (scope[reported[m]] for m in group)
        for member in rest:
            union(first, member)
        grouped.append(first)
    grouped_roots = {find(s) for s in grouped}
    out: dict[str, str] = {}
    for test in collection:
        root = find(scope[test])
        out[test] = _GROUP_PREFIX + root if root in grouped_roots else scope[test]
    return out


class DependencyGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """LoadScopeScheduling whose units are dependency groups (merged with ``mode``'s scopes)."""

    def __init__(
        self,
        config: pytest.Config,
        log: Optional[Any],
        deps: Sequence[Dependency],
        mode: str = "load",
    ) -> None:
        super().__init__(config, log)
        self.deps = list(deps)
        self.mode = mode
        self.scopes: dict[str, str] = {}
        self.groups = 0

    def _split_scope(self, nodeid: str) -> str:
        return self.scopes.get(nodeid) or base_scope(nodeid, self.mode)

    def schedule(self) -> None:
        if self.collection is None and self.registered_collections:
            first = list(next(iter(self.registered_collections.values())))
            self.scopes = unit_scopes(first, self.deps, self.mode)
            self.groups = len({s for s in self.scopes.values() if s.startswith(_GROUP_PREFIX)})
            self._announce(len(first))
        super().schedule()

    def _announce(self, n_tests: int) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or not self.groups:
            return
        in_groups = sum(1 for s in self.scopes.values() if s.startswith(_GROUP_PREFIX))
        reporter.write_line(
            f"orderdep: {self.groups} dependency group(s) ({in_groups} of {n_tests} tests) "
            "each kept on one worker, in enhanced order"
        )


class SchedulerHooks:
    """Registered on the xdist controller only when pytest-xdist is present."""

    def __init__(self, deps: Sequence[Dependency]) -> None:
        self.deps = list(deps)

    def pytest_xdist_make_scheduler(
        self, config: pytest.Config, log: Any
    ) -> Optional[DependencyGroupScheduling]:
        mode = str(config.getoption("dist"))
        if mode not in LOAD_MODES:
            return None
        return DependencyGroupScheduling(config, log, self.deps, mode)
