from __future__ import annotations

import logging
import os
import random
import sys
import warnings
from pathlib import Path

import pytest
from state_helpers import Project

from orderdep.analysis.state.fingerprint import identity
from orderdep.analysis.state.namespaces import PLAIN, SKIP, classify, python_roots
from orderdep.analysis.state.roots import StateTracker, diff, snapshot


def test_roots_are_named_after_modules_classes_and_caches(project: Project) -> None:
    state = project.module("state")
    n = project.name
    snap = snapshot(project.config())
    for name in (
        f"{n}.state._ENTRIES",
        f"{n}.state.SETTINGS",
        f"{n}.state.Meter.hits",
        f"{n}.state.Meter.LABELS",
        f"{n}.state.Meter.Inner.depth",
        f"cache:{n}.state.square",
        f"{n}.state.square",  # the function itself, by identity
        f"{n}.state",  # the package's attribute for its submodule
        "cwd",
        "sys.path",
        "sys.argv",
        "decimal",
        "sys.modules",
        "warnings",
        "random",
        "logging:root",
        f"file:{n}/state.py",
        f"file:{n}/",
    ):
        assert name in snap, name
    assert f"{n}.state.Meter.bump" not in snap  # methods are code
    assert not any(k.startswith(f"{n}.state.__") for k in snap)
    assert any(k.startswith("env:") for k in snap)
    assert dict(python_roots(f"{n}.state", state))[f"{n}.state.LIMIT"] == 3


def test_a_class_flag_with_a_dunder_name_is_a_root_but_python_specials_are_not() -> None:
    class Series:
        __configured__ = False  # set by the first construction
        __slots__ = ()

    owner = Series
    assert classify("__configured__", False, __name__, owner) == PLAIN
    for special in ("__module__", "__doc__", "__qualname__", "__slots__", "__hash__"):
        assert classify(special, vars(Series).get(special), __name__, owner) == SKIP, special
    # frameworks' metadata in class dunders (schemas, validators) is not walked
    assert classify("__model_schema__", {"type": "model"}, __name__, owner) == SKIP
    # module globals: dunders stay out (``__version__``, ``__all__``, the import system's)
    assert classify("__version__", "1.0", __name__) == SKIP


def test_a_function_assigned_onto_a_class_is_state_but_its_own_methods_are_code() -> None:
    class Source:
        def name(self) -> str:
            return "real"

        alias = name

    def make(self: object) -> int:
        return 3

    assert classify("name", Source.name, __name__, Source) == SKIP
    assert classify("alias", vars(Source)["alias"], __name__, Source) == SKIP
    assert classify("make", make, __name__, Source) == PLAIN  # defined in a test
    assert classify("name", lambda self: "fake", __name__, Source) == PLAIN
    assert classify("name", Source.name, "elsewhere", Source) == PLAIN  # another module's
    # with ``functions`` (the repair's probe), its own methods are roots too
    assert classify("name", Source.name, __name__, Source, functions=True) == PLAIN
    # and so are its descriptors: a property replaced by a mock shows
    assert classify("bump", staticmethod(make), __name__, Source, functions=True) == PLAIN
    assert classify("size", property(make), __name__, Source, functions=True) == PLAIN
    assert classify("size", property(make), __name__, Source) == SKIP


def test_a_method_replaced_on_a_class_shows_with_class_functions(project: Project) -> None:
    state = project.module("state")
    n = project.name
    tracker = StateTracker(project.config(files=False, class_functions=True))
    before = tracker.snapshot()
    assert f"{n}.state.Meter.bump" in before
    original = state.Meter.bump
    state.Meter.bump = lambda self: None
    try:
        assert diff(before, tracker.snapshot()) == [f"{n}.state.Meter.bump"]
    finally:
        state.Meter.bump = original
    assert diff(before, tracker.snapshot()) == []


def test_unchanged_state_diffs_empty_and_each_kind_of_write_shows(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = project.module("state")
    n = project.name
    monkeypatch.chdir(project.root)
    logger = logging.getLogger(f"{n}.log")
    tracker = StateTracker(project.config())
    before = tracker.snapshot()
    assert diff(before, tracker.snapshot()) == []

    state._ENTRIES.append(1)
    state.Meter().bump()
    state.SETTINGS["names"].append("c")
    state.square(4)
    monkeypatch.setenv("ORDERDEP_TEST_VAR", "1")
    (project.root / ".state").mkdir()
    (project.root / ".state" / "x.lock").write_text("locked")
    (project.tmp / "scratch.txt").write_text("t")
    (project.home / ".apprc").write_text("h")
    monkeypatch.setattr(logger, "level", logging.DEBUG)
    random.random()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        after = tracker.snapshot()
    assert diff(before, after) == sorted(
        [
            f"{n}.state._ENTRIES",
            f"{n}.state.Meter.hits",
            f"{n}.state.SETTINGS",
            f"cache:{n}.state.square",
            "env:ORDERDEP_TEST_VAR",
            "file:.state/",
            "file:.state/x.lock",
            "file:$TMP/scratch.txt",
            "file:~/.apprc",
            f"logging:{n}.log",
            "random",
            "warnings",
        ]
    )


def test_rebinding_adding_and_deleting_globals(project: Project) -> None:
    state = project.module("state")
    n = project.name
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    state.LIMIT = 4
    state.NEW = {"x": 1}
    del state.SETTINGS
    state.Meter.added = [1]
    after = tracker.snapshot()
    assert diff(before, after) == sorted(
        [
            f"{n}.state.LIMIT",
            f"{n}.state.NEW",
            f"{n}.state.SETTINGS",
            f"{n}.state.Meter.added",
        ]
    )
    assert diff(after, tracker.snapshot()) == []
    state.LIMIT = 3  # back to an equal value: no difference left
    assert f"{n}.state.LIMIT" not in diff(before, tracker.snapshot())


def test_aliases_belong_to_every_root_that_reaches_them(project: Project) -> None:
    state = project.module("state")
    n = project.name
    alias = project.write(
        f"{n}/alias.py", f"from {n}.state import _ENTRIES\nHOLDER = {{'e': _ENTRIES}}\n"
    )
    assert alias.exists()
    project.module("alias")
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    state._ENTRIES.append("x")
    assert diff(before, tracker.snapshot()) == [
        f"{n}.alias.HOLDER",
        f"{n}.alias._ENTRIES",
        f"{n}.state._ENTRIES",
    ]
    assert sorted(tracker.owners[identity(state._ENTRIES)]) == [
        f"{n}.alias.HOLDER",
        f"{n}.alias._ENTRIES",
        f"{n}.state._ENTRIES",
    ]


def test_new_module_imported_adds_its_roots_and_sys_modules(project: Project) -> None:
    n = project.name
    project.write(f"{n}/late.py", "VALUE = [1]\n")
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    project.module("late")
    changed = diff(before, tracker.snapshot())
    assert f"{n}.late.VALUE" in changed and "sys.modules" in changed


def test_site_packages_and_venvs_inside_the_project_are_not_project_code(
    project: Project,
) -> None:
    project.write("venv/pyvenv.cfg", "home = /usr\n")
    project.write("venv/lib/vendored_mod.py", "X = 1\n")
    project.write("lib/site-packages/sitemod.py", "Y = 1\n")
    sys.path.insert(0, str(project.root / "venv" / "lib"))
    sys.path.insert(0, str(project.root / "lib" / "site-packages"))
    try:
        import sitemod  # type: ignore[import-not-found]
        import vendored_mod  # type: ignore[import-not-found]

        assert vendored_mod.X == sitemod.Y == 1
        snap = snapshot(project.config())
        assert not any(k.startswith(("vendored_mod.", "sitemod.")) for k in snap)
        assert not any("pyvenv" in k or "site-packages" in k for k in snap)
    finally:
        sys.path.remove(str(project.root / "venv" / "lib"))
        sys.path.remove(str(project.root / "lib" / "site-packages"))
        sys.modules.pop("vendored_mod", None)
        sys.modules.pop("sitemod", None)


def test_files_same_content_rewritten_is_no_write_and_caches_are_skipped(
    project: Project,
) -> None:
    target = project.write("data/config.txt", "v1")
    (project.root / "__pycache__").mkdir()
    (project.root / "__pycache__" / "x.pyc").write_bytes(b"\0")
    tracker = StateTracker(project.config())
    before = tracker.snapshot()
    assert not any("__pycache__" in k or k.endswith(".pyc") for k in before)
    mtime = target.stat().st_mtime_ns
    target.write_text("v1")
    os.utime(target, ns=(mtime + 10_000_000, mtime + 10_000_000))
    (project.root / "__pycache__" / "y.pyc").write_bytes(b"\0")
    (project.tmp / "pytest-of-someone").mkdir()
    assert diff(before, tracker.snapshot()) == []
    target.write_text("v2")
    assert diff(before, tracker.snapshot()) == ["file:data/config.txt"]
    target.unlink()
    assert diff(before, tracker.snapshot()) == ["file:data/config.txt"]


def test_process_roots_cwd_and_sys_path(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    monkeypatch.chdir(project.tmp)
    monkeypatch.syspath_prepend(str(project.home))
    changed = diff(before, tracker.snapshot())
    assert "cwd" in changed and "sys.path" in changed


def test_fingerprints_of_immutable_values_are_reused(project: Project, tmp_path: Path) -> None:
    state = project.module("state")
    tracker = StateTracker(project.config(files=False))
    first = tracker.snapshot()
    entry = tracker._entries[f"{project.name}.state"]["LIMIT"]
    assert entry[3] == first[f"{project.name}.state.LIMIT"]  # cached
    assert tracker._entries[f"{project.name}.state"]["_ENTRIES"][3] is None  # re-walked
    state._ENTRIES.append(1)
    assert tracker.snapshot()[f"{project.name}.state.LIMIT"] == entry[3]


def test_touched_limits_rewalks_to_read_roots_and_their_partners(project: Project) -> None:
    state = project.module("state")
    n = project.name
    project.write(f"{n}/alias.py", f"from {n}.state import _ENTRIES as ALIASED\n")
    project.module("alias")
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    state._ENTRIES.append(1)
    state.SETTINGS["debug"] = True
    assert diff(before, tracker.snapshot(touched=set())) == []  # nothing read: not re-walked
    assert tracker.walked == 0
    changed = diff(before, tracker.snapshot(touched={f"{n}.alias.ALIASED"}))
    # the alias shares its list with state._ENTRIES, so both are re-walked
    assert changed == [f"{n}.alias.ALIASED", f"{n}.state._ENTRIES"]
    assert diff(before, tracker.snapshot()) == sorted([*changed, f"{n}.state.SETTINGS"])
    state.LIMIT = 10  # a rebinding shows whatever was read
    assert f"{n}.state.LIMIT" in diff(before, tracker.snapshot(touched=set()))


def test_values_that_fail_when_looked_at_do_not_break_snapshots(project: Project) -> None:
    n = project.name
    project.write(
        f"{n}/proxy.py",
        """
        class Hostile:
            def __getattribute__(self, name):
                raise RuntimeError("working outside of application context")

        current_app = Hostile()
        items = [Hostile()]
        """,
    )
    project.module("proxy")
    tracker = StateTracker(project.config(files=False))
    snap = tracker.snapshot()
    assert f"{n}.proxy.current_app" in snap and f"{n}.proxy.items" in snap
    assert diff(snap, tracker.snapshot()) == []


def test_a_failing_part_of_a_snapshot_keeps_its_last_fingerprints(project: Project) -> None:
    state = project.module("state")
    n = project.name
    project.write(
        f"{n}/noisy.py",
        """
        import logging

        class Handler(logging.Handler):
            @property
            def level(self):
                raise RuntimeError("no level")

            @level.setter
            def level(self, value):
                pass

        logging.getLogger("noisy").addHandler(Handler())
        """,
    )
    project.module("noisy")
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    assert "logging:noisy" in before

    def broken(*args: object) -> None:
        raise RuntimeError("scan failed")

    tracker._process.fingerprint = broken  # type: ignore[method-assign]
    state._ENTRIES.append(1)
    after = tracker.snapshot()
    assert diff(before, after) == [f"{n}.state._ENTRIES"]  # process roots kept as they were
    assert tracker.errors == ["process: RuntimeError: scan failed"]


CACHED = """
import functools

RATES = {"standard": 1.0, "express": 2.5}


@functools.lru_cache(maxsize=128)
def rate(tier):
    return RATES[tier]


@functools.lru_cache(maxsize=None)
def unbounded(tier):
    return [RATES[tier]]
"""


@pytest.mark.parametrize(
    "func",
    [
        pytest.param(
            "rate",
            marks=pytest.mark.skipif(
                sys.version_info < (3, 10),
                reason="bounded lru_cache entries are read from CPython 3.10+ internals",
            ),
        ),
        "unbounded",
    ],
)
def test_a_cache_cleared_and_filled_again_shows_a_write_but_hits_do_not(
    project: Project, func: str
) -> None:
    n = project.name
    project.write(f"{n}/pricing.py", CACHED)
    pricing = project.module("pricing")
    cached = getattr(pricing, func)
    root = f"cache:{n}.pricing.{func}"
    tracker = StateTracker(project.config(files=False))
    cached("express")  # a victim's value: 2.5
    cached.cache_clear()
    cached("express")
    before = tracker.snapshot()
    cached("express")  # a hit: same content
    assert diff(before, tracker.snapshot()) == []
    # a cleaner: clears and fills with another key (same currsize and misses as before)
    cached.cache_clear()
    cached("standard")
    after = tracker.snapshot()
    assert diff(before, after) == [root]
    # a polluter: same key, another result computed under patched data
    cached.cache_clear()
    cached("express")
    restored = tracker.snapshot()
    assert diff(before, restored) == []
    pricing.RATES["express"] = 1.5
    cached.cache_clear()
    cached("express")
    pricing.RATES["express"] = 2.5
    # same statistics again: seen because the test named the cache (the read tracer)
    assert diff(restored, tracker.snapshot(touched={root})) == [root]


def test_a_class_a_factory_made_is_walked_under_the_name_it_is_bound_to(
    project: Project,
) -> None:
    n = project.name
    project.write(
        f"{n}/made.py",
        "import collections\n\ng = collections.namedtuple('Globals', '')\ng.debug = False\n"
        "class Real:\n    level = 1\n\nAlias = Real\n",
    )
    made = project.module("made")
    tracker = StateTracker(project.config(files=False))
    before = tracker.snapshot()
    assert f"{n}.made.g.debug" in before
    assert f"{n}.made.Real.level" in before and f"{n}.made.Alias.level" not in before
    made.g.debug = True
    assert diff(before, tracker.snapshot()) == [f"{n}.made.g.debug"]
