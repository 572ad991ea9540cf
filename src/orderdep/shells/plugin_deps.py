"""The work behind the pytest plugin's ``--orderdep-*`` options (see :mod:`.plugin`).

**Enhancing the final order** (002 §3.2, Figure 2). The order pytest is about to run is
the unenhanced order T_u; the tests collected before any plugin reordered or deselected
them are the original order T_orig. :func:`orderdep.core.enhance.enhance_order` moves
victims before their polluters and adds back missing positive dependees (a state-setter
that ``-k``, ``-m``, ``--lf``, ``--deselect`` or a selection plugin left out).

This has to be the last change to the order. Reordering and deselection plugins use
``pytest_collection_modifyitems`` in three ways: plain implementations (``-k``/``-m``,
``--deselect``, pytest-random-order), wrappers that work *before* their ``yield``
(pytest-randomly) and wrappers that work *after* it (``--lf``/``--ff``, ``--nf``). A plain
``trylast`` implementation would still run before the last kind, so the hook here is a
``tryfirst`` wrapper registered from a ``trylast`` ``pytest_configure``: registered after
every other plugin, it is the outermost wrapper, so its code before ``yield`` sees the
untouched collection (T_orig) and its code after ``yield`` runs after everything else.

Collecting what a partial run left out (files of needed state-setters that no argument
names, ``--lf``, pytest-testmon) is :mod:`orderdep.shells.plugin_collect`'s job; tests
collected only for that are not part of the user's selection.

Items re-added after a deselection are taken back out of the terminal reporter's
"deselected" count, so "collected N items / M deselected" stays true.

**Shards.** ``--orderdep-shards K --orderdep-shard I`` keeps machine I's share of
:func:`orderdep.core.parallelization.parallelize_groups` (dependency groups whole,
balanced longest first by durations), in enhanced order; the rest are deselected.

**xdist.** Each worker enhances its own collection (identically, so xdist's collection
check passes); the controller gets a scheduler
(:mod:`orderdep.shells.xdist_scheduler`) that keeps each dependency group on one worker.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.depsfile import DEFAULT_DEPS, Dependency, load_deps
from orderdep.core.enhance import enhance_order
from orderdep.core.order_check import enhance_stats
from orderdep.core.suite import split_node_id
from orderdep.errors import OrderdepError, shown_path
from orderdep.shells.plugin_collect import CollectHooks

#: Durations fall back to the per-test data of ``orderdep coverage``.
COVERAGE_FILE = Path(".orderdep") / "coverage.json"
PLUGIN_NAME = "orderdep-deps"


@dataclass(frozen=True)
class Settings:
    """The plugin's options, validated."""

    deps_path: Optional[Path]
    shards: Optional[int]
    shard: Optional[int]
    durations_path: Optional[Path]
    strict: bool = False


def read_settings(config: pytest.Config) -> Settings:
    """The ``--orderdep-*`` options and ini setting; raises :class:`pytest.UsageError`."""
    deps_opt = config.getoption("orderdep_deps")
    deps_ini = str(config.getini("orderdep_deps") or "")
    deps_path: Optional[Path] = None
    if deps_opt:
        deps_path = config.invocation_params.dir / deps_opt
    elif deps_ini:
        # An ini value is relative to the ini file, like pytest's own path settings.
        base = config.inipath.parent if config.inipath else config.rootpath
        deps_path = base / deps_ini
    shards = config.getoption("orderdep_shards")
    shard = config.getoption("orderdep_shard")
    if (shards is None) != (shard is None):
        given = "--orderdep-shards" if shard is None else "--orderdep-shard"
        missing = "--orderdep-shard I" if shard is None else "--orderdep-shards K"
        raise pytest.UsageError(f"{given} needs {missing} too (run machine I of K, 1 <= I <= K)")
    if shards is not None and shard is not None and shard > shards:
        raise pytest.UsageError(
            f"--orderdep-shard {shard!r} is out of range for --orderdep-shards {shards!r}; "
            f"use a value from 1 to {shards}"
        )
    durations_opt = config.getoption("orderdep_durations")
    durations_path = config.invocation_params.dir / durations_opt if durations_opt else None
    if durations_path is not None and shards is None:
        raise pytest.UsageError(
            f"--orderdep-durations {durations_opt!r} only balances shards; "
            "add --orderdep-shards K --orderdep-shard I"
        )
    strict = bool(config.getoption("orderdep_deps_strict") or config.getini("orderdep_deps_strict"))
    return Settings(deps_path, shards, shard, durations_path, strict)


def install(config: pytest.Config) -> None:
    """Validate the options, load the files and register the collection hooks."""
    settings = read_settings(config)
    deps: list[Dependency] = []
    if settings.deps_path is not None:
        try:
            deps = load_deps(settings.deps_path)
        except OrderdepError as exc:
            raise pytest.UsageError(f"orderdep: {exc}") from None
    durations = _durations(config, settings)
    plugin = DepsPlugin(config, settings, deps, durations)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    config.pluginmanager.register(plugin.collecting, PLUGIN_NAME + "-collect")
    if deps and _xdist_controller(config):
        from orderdep.shells.xdist_scheduler import SchedulerHooks

        config.pluginmanager.register(SchedulerHooks(deps), PLUGIN_NAME + "-xdist")


def _xdist_controller(config: pytest.Config) -> bool:
    """pytest-xdist is present, will distribute tests, and this is not a worker."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return False
    return str(config.getoption("dist", "no")) != "no"


def _durations(config: pytest.Config, settings: Settings) -> dict[str, float]:
    if settings.shards is None:
        return {}
    from orderdep.analysis.regression.coverage import load_durations

    path = settings.durations_path
    if path is None:
        path = config.rootpath / COVERAGE_FILE
        if not path.is_file():
            return {}
    try:
        return load_durations(path)
    except OrderdepError as exc:
        raise pytest.UsageError(f"orderdep: {exc}") from None


# --- checking the file against the collection -------------------------------------------------


def unknown_ids(
    deps: Sequence[Dependency],
    collected: Sequence[str],
    rootpath: Path,
    modules: Mapping[str, object],
) -> list[str]:
    """Ids of ``deps`` that cannot be tests of this project.

    An id is unknown when its file does not exist under the rootdir, or when its module
    was imported this session (``modules``: module path -> module object) and has no
    such function or class. Ids in modules this run did not import are not judged
    (``--lf`` or path arguments may leave modules out); their tests cannot be added.
    """
    known = set(collected)
    out: dict[str, None] = {}
    for d in deps:
        for test in (d.test, d.dependee, *(d.group or ())):
            if test in known or test in out:
                continue
            module, classes, name = split_node_id(test)
            if not (rootpath / module).exists():
                out[test] = None
                continue
            obj = modules.get(module)
            if obj is None:
                continue
            for attr in (*classes, name.partition("[")[0]):
                obj = getattr(obj, attr, None)
                if obj is None:
                    out[test] = None
                    break
    return list(out)


def _python_modules(items: Sequence[pytest.Item]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is not None:
            out.setdefault(split_node_id(item.nodeid)[0], module)
    return out


def without_ids(deps: Sequence[Dependency], unknown: Sequence[str]) -> list[Dependency]:
    """``deps`` without the entries that name any of ``unknown`` (a group goes whole)."""
    gone = set(unknown)
    return [d for d in deps if gone.isdisjoint((d.test, d.dependee, *(d.group or ())))]


def check_command(config: pytest.Config, source: Path) -> str:
    """``orderdep deps --check`` for this project and file, as short as it can be."""
    parts = ["orderdep", "deps", "--check"]
    if config.rootpath != config.invocation_params.dir:
        parts.append(shown_path(config.rootpath))
    if source != config.rootpath / DEFAULT_DEPS:
        parts += ["--deps", shown_path(source)]
    return shlex.join(parts)


def skipped_message(
    config: pytest.Config, source: Path, unknown: Sequence[str], skipped: int
) -> str:
    shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
    return (
        f"orderdep: warning: dependencies file {shown_path(source)!r} names {len(unknown)} "
        f"test(s) this suite does not have ({shown}); skipped {skipped} entr"
        f"{'y' if skipped == 1 else 'ies'}; list them with `{check_command(config, source)}`"
    )


def _unknown_message(source: Path, unknown: Sequence[str], collected: Sequence[str]) -> str:
    lines = [f"orderdep: dependencies file {str(source)!r} names tests this suite does not have:"]
    for test in unknown[:10]:
        close = difflib.get_close_matches(test, collected, n=2, cutoff=0.6)
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        lines.append(f"  {test!r}{hint}")
    if len(unknown) > 10:
        lines.append(f"  ... and {len(unknown) - 10} more")
    lines.append(
        "Fix or remove these entries (tests may have been renamed or deleted), or "
        "re-create the file with `orderdep deps`."
    )
    return "\n".join(lines)


# --- the hooks --------------------------------------------------------------------------------


class DepsPlugin:
    """Enhances (and optionally shards) the final order; reports what it changed."""

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        deps: list[Dependency],
        durations: dict[str, float],
    ) -> None:
        self.config = config
        self.settings = settings
        self.deps = deps
        self.durations = durations
        self.lines: list[str] = []
        self._deselected: dict[int, pytest.Item] = {}
        self.collecting = CollectHooks(config, deps)
        # xdist (--dist loadgroup) appends "@group" to ids after the hook's yield: the
        # ids before it are the ones the dependencies file names.
        self._plain: dict[int, str] = {}

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> Any:
        collected = list(items)  # before anyone reorders or deselects: T_orig
        hooks = self.collecting
        present = {i.nodeid for i in collected}
        for item in [*hooks.unfiltered, *hooks.partial_items(present)]:
            if item.nodeid not in present:
                present.add(item.nodeid)
                collected.append(item)
        # Tests collected only for their state-setters are not part of the user's
        # selection: other plugins never see them, and they run only when needed.
        extra = [i for i in items if hooks.is_extra(i.nodeid)]
        if extra:
            gone = {id(i) for i in extra}
            items[:] = [i for i in items if id(i) not in gone]
        self._plain = {id(i): i.nodeid for i in collected}
        result = yield
        self.apply(collected, items, extra)
        return result

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        for item in items:
            self._deselected[id(item)] = item

    def pytest_report_collectionfinish(self) -> list[str]:
        return [*self.collecting.lines, *self.lines]

    # -- the work ----------------------------------------------------------------------------
    def _id(self, item: pytest.Item) -> str:
        return self._plain.get(id(item), item.nodeid)

    def apply(
        self,
        collected: list[pytest.Item],
        items: list[pytest.Item],
        extra: Sequence[pytest.Item] = (),
    ) -> None:
        by_id: dict[str, pytest.Item] = {}
        for item in [*collected, *items]:
            by_id.setdefault(self._id(item), item)
        everything = list(by_id)
        current = [self._id(i) for i in items]
        if len(set(current)) != len(current):
            raise pytest.UsageError(
                "orderdep: the same test id is collected twice (e.g. --keep-duplicates); "
                "--orderdep-* options need each test once"
            )
        if self.deps:
            self._check_ids(everything, _python_modules([*collected, *items]))
        try:
            final = self._order(current, everything)
        except OrderdepError as exc:
            raise pytest.UsageError(f"orderdep: {exc}") from None
        keep = set(final)
        dropped = [i for i in [*items, *extra] if self._id(i) not in keep]
        added = [by_id[t] for t in final if t not in set(current)]
        items[:] = [by_id[t] for t in final]
        self._undeselect(added)
        self._report_outside([self._id(i) for i in added])
        if dropped:
            self.config.hook.pytest_deselected(items=dropped)

    def _report_outside(self, added: Sequence[str]) -> None:
        outside = [t for t in added if self.collecting.is_extra(t)]
        if outside:
            shown = ", ".join(outside[:3]) + (", ..." if len(outside) > 3 else "")
            self.lines.append(
                f"orderdep: added {len(outside)} state-setter(s) from outside the given "
                f"paths: {shown}"
            )

    def _check_ids(self, everything: list[str], modules: Mapping[str, object]) -> None:
        assert self.settings.deps_path is not None
        source = self.settings.deps_path
        unknown = unknown_ids(self.deps, everything, self.config.rootpath, modules)
        if not unknown:
            return
        if self.settings.strict:
            raise pytest.UsageError(_unknown_message(source, unknown, everything))
        kept = without_ids(self.deps, unknown)
        message = skipped_message(self.config, source, unknown, len(self.deps) - len(kept))
        self.lines.append(message)
        self.deps = kept

    def _order(self, current: list[str], everything: list[str]) -> list[str]:
        enhanced = current
        if self.deps:
            enhanced = enhance_order(current, self.deps, all_tests=everything)
            stats = enhance_stats(current, enhanced, self.deps)
            self.lines.append(f"orderdep: {stats.summary()}")
            if self.config.option.verbose > 0:
                if stats.added:
                    self.lines.append(f"orderdep: added {', '.join(stats.added)}")
                if stats.moved:
                    self.lines.append(f"orderdep: moved {', '.join(stats.moved)}")
        if self.settings.shards is None or self.settings.shard is None:
            return enhanced
        # networkx (behind the groups) costs a noticeable start-up: only when sharding.
        from orderdep.core.parallelization import dependency_groups, makespan, parallelize_groups

        k, i = self.settings.shards, self.settings.shard
        # No durations known: every test counts the same (1 s), so LPT balances counts.
        default = None if self.durations else 1.0
        machines = parallelize_groups(
            current, self.deps, self.durations, k, all_tests=everything, default_duration=default
        )
        mine = machines[i - 1]
        groups = [g for g in dependency_groups(mine, self.deps, all_tests=everything) if len(g) > 1]
        span = makespan(machines, self.durations, default_duration=default)
        own = makespan([mine], self.durations, default_duration=default)
        balance = (
            f"estimated {own:.2f}s of a {span:.2f}s makespan"
            if self.durations
            else "balanced by test count (no durations known)"
        )
        self.lines.append(
            f"orderdep: shard {i}/{k}: {len(mine)} of {len(enhanced)} tests, "
            f"{len(groups)} dependency group(s) kept whole; {balance}"
        )
        return mine

    def _undeselect(self, added: list[pytest.Item]) -> None:
        # pytest has no hook to take back a deselection; fix the reporter's count.
        back = [i for i in added if id(i) in self._deselected]
        if not back:
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        stats = getattr(reporter, "stats", None)
        if not isinstance(stats, dict) or "deselected" not in stats:
            return
        again = {id(i) for i in back}
        stats["deselected"] = [i for i in stats["deselected"] if id(i) not in again]
        if not stats["deselected"]:
            del stats["deselected"]
        for item in back:
            self._deselected.pop(id(item), None)
