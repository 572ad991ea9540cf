"""Collecting the state-setters a partial run left out (the collection side of the plugin).

The enhancement (:mod:`orderdep.shells.plugin_deps`) can only add back a state-setter
that pytest collected. Deselection (``-k``, ``-m``, ``--deselect``) keeps every file
collected, but other ways of running part of a suite do not collect the setter at all:

* **path and node-id arguments** (``pytest tests/test_b.py::TestX::test_b``): the files
  holding the needed state-setters (transitively: a setter's own setters too) that no
  argument names are added to the collection arguments for this collection only
  (:func:`missing_files`); a needed setter in a file an argument names only in part
  (another node id of that file) is collected from that file's module
  (:meth:`CollectHooks.partial_items`). Tests no argument names are *extra*: they stay out
  of the order other plugins see and are reported as deselected unless the enhancement
  needs them. A collection error in a file collected only for its setters is one warning
  line, not a failed run.
* **``--lf``** drops passed tests while collecting and skips files without failures; the
  unfiltered tests of a dependee file are kept here.
* **pytest-testmon** skips unchanged files; a dependee file is still collected.

Everything here works on node-id strings and paths, apart from the hooks themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.depsfile import Dependency, positive_alternatives
from orderdep.core.suite import split_node_id


@dataclass(frozen=True)
class Target:
    """One collection argument: a path (absolute) and the node-id parts after it."""

    path: Path
    parts: tuple[str, ...] = ()

    def covers(self, rootpath: Path, test: str) -> bool:
        """Whether this argument collects ``test`` (a node id relative to ``rootpath``)."""
        module, classes, name = split_node_id(test)
        file = rootpath / module
        if not self.parts:
            return file == self.path or self.path in file.parents
        if file != self.path:
            return False
        names = (*classes, name)
        if len(self.parts) > len(names):
            return False
        head, last = self.parts[:-1], self.parts[-1]
        got = names[len(self.parts) - 1]
        same_last = got == last or ("[" not in last and got.partition("[")[0] == last)
        return names[: len(head)] == head and same_last


def targets(args: Sequence[str], invocation_dir: Path) -> list[Target]:
    """The collection arguments as :class:`Target` s (``path::part::part``)."""
    out = []
    for arg in args:
        path, *parts = arg.split("::")
        out.append(Target((invocation_dir / path).resolve(), tuple(parts)))
    return out


def uncovered_dependees(
    deps: Sequence[Dependency], given: Sequence[Target], rootpath: Path
) -> list[str]:
    """State-setters the tests named by ``given`` need that no argument collects.

    Per test one alternative (:func:`~orderdep.core.depsfile.positive_alternatives`) as
    the enhancement would choose it: one the arguments already collect, else the first
    whose files exist; then the chosen setters' own needs, transitively (BFS order).
    """
    alternatives = positive_alternatives(deps)

    def covered(test: str) -> bool:
        return any(t.covers(rootpath, test) for t in given)

    def exists(test: str) -> bool:
        return (rootpath / split_node_id(test)[0]).is_file()

    frontier = [t for t in alternatives if covered(t)]
    seen = set(frontier)
    out: dict[str, None] = {}
    while frontier:
        options = alternatives.get(frontier.pop(0), [])
        chosen = next((a for a in options if all(map(covered, a))), None) or next(
            (a for a in options if all(map(exists, a))), ()
        )
        for member in chosen:
            if not covered(member):
                out.setdefault(member)
            if member not in seen:
                seen.add(member)
                frontier.append(member)
    return list(out)


def missing_files(needed: Sequence[str], given: Sequence[Target], rootpath: Path) -> list[Path]:
    """Existing files of ``needed`` tests that no argument names at all (in first-need order)."""
    out: dict[Path, None] = {}
    for test in needed:
        file = rootpath / split_node_id(test)[0]
        named = any(t.path == file or t.path in file.parents for t in given)
        if not named and file.is_file():
            out[file] = None
    return list(out)


def _items_of(collector: pytest.Collector) -> list[pytest.Item]:
    """Every item under ``collector``, collected directly (no reporting hooks)."""
    out: list[pytest.Item] = []
    for node in collector.collect():
        if isinstance(node, pytest.Item):
            out.append(node)
        elif isinstance(node, pytest.Collector):
            out.extend(_items_of(node))
    return out


class CollectHooks:
    """Collection hooks that keep the needed state-setters within reach of the enhancement."""

    def __init__(self, config: pytest.Config, deps: Sequence[Dependency]) -> None:
        self.config = config
        self.deps = list(deps)
        self.rootpath = config.rootpath.resolve()
        # --lf drops passed tests while collecting, before any modifyitems hook; keep them.
        self._lf = bool(deps) and bool(config.getoption("lf", False))
        self.dependee_files = {
            split_node_id(t)[0]
            for d in deps
            if d.kind == "positive"
            for t in d.group or (d.dependee,)
        }
        self.unfiltered: list[pytest.Item] = []
        self.given: Optional[list[Target]] = None  # None: every test is in the selection
        self.needed: list[str] = []
        self.added_files: list[Path] = []
        self.lines: list[str] = []
        self._files: dict[Path, pytest.Collector] = {}

    # -- path and node-id arguments ---------------------------------------------------------
    def _widen(self) -> list[str]:
        """Collection arguments for the needed files no argument names (may be none)."""
        # xdist workers get the user's arguments and widen them the same way, so every
        # worker collects the same tests.
        if not self.deps or self.config.option.pyargs:
            return []
        self.given = targets(self.config.args, self.config.invocation_params.dir)
        self.needed = uncovered_dependees(self.deps, self.given, self.rootpath)
        self.added_files = missing_files(self.needed, self.given, self.rootpath)
        return [str(f) for f in self.added_files]

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> Any:
        extra = self._widen()
        if not extra:
            return (yield)
        args = self.config.args
        self.config.args = [*args, *extra]
        try:
            return (yield)
        finally:
            self.config.args = args

    def is_extra(self, nodeid: str) -> bool:
        """Whether no collection argument names ``nodeid`` (collected only for setters)."""
        return self.given is not None and not any(
            t.covers(self.rootpath, nodeid) for t in self.given
        )

    def partial_items(self, present: Iterable[str]) -> list[pytest.Item]:
        """Needed setters in files an argument names only in part (collected again here)."""
        have = set(present)
        wanted = [t for t in self.needed if t not in have]
        out: list[pytest.Item] = []
        for file in dict.fromkeys(self.rootpath / split_node_id(t)[0] for t in wanted):
            collector = self._files.get(file)
            if collector is None or file in self.added_files:
                continue
            try:
                items = _items_of(collector)
            except Exception:  # an error here must not break the run; setters stay missing
                continue
            out += [i for i in items if i.nodeid in wanted and i.nodeid not in have]
        return out

    # -- collect reports: --lf, errors in added files ----------------------------------------
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        # trylast: inside --lf's collection wrapper, so this sees a file's tests before
        # --lf filters them, and files --lf skipped (empty result) can be collected here.
        report = yield
        if not isinstance(collector, pytest.File):
            return report
        path = collector.path.resolve()
        self._files[path] = collector
        if report.failed and path in self.added_files:
            # Collected only for its state-setters: the user's run must go on without them.
            first = str(report.longreprtext).strip().splitlines()
            why = first[-1] if first else "collection error"
            self.lines.append(
                f"orderdep: warning: cannot collect {collector.nodeid!r} for its "
                f"state-setters ({why}); running without them"
            )
            report.outcome = "passed"
            report.longrepr = None
            report.result = []
            return report
        if not self._lf:
            return report
        kept = list(report.result)
        if kept:
            self.unfiltered.extend(n for n in kept if isinstance(n, pytest.Item))
        elif collector.nodeid in self.dependee_files:
            try:
                self.unfiltered.extend(_items_of(collector))
            except Exception:  # an import error here must not break the --lf run
                pass
        return report

    # -- pytest-testmon ----------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> Optional[bool]:
        # pytest-testmon skips whole unchanged files; a file holding a state-setter must
        # still be collected so a selected brittle can get it back (testmon then
        # deselects its tests, and the enhancement re-adds only what is needed).
        if not self.deps or not config.pluginmanager.hasplugin("pytest-testmon"):
            return None
        try:
            rel = collection_path.relative_to(config.rootpath).as_posix()
        except ValueError:
            return None
        return False if rel in self.dependee_files else None
