from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, Callable

import pytest
from state_helpers import Project

from orderdep.analysis.state.reads import ReadTracer, expand
from orderdep.analysis.state.roots import StateTracker


@pytest.fixture
def tracer(project: Project) -> Iterator[ReadTracer]:
    tracker = StateTracker(project.config())
    project.module("state")
    tracker.snapshot()
    rec = ReadTracer(tracker)
    yield rec
    if rec.active:
        rec.stop()


def reads_of(rec: ReadTracer, fn: Callable[[], Any]) -> set[str]:
    rec.start()
    try:
        fn()
    finally:
        roots = rec.stop()
    return roots


def test_globals_and_class_attributes_read_by_project_code(
    project: Project, tracer: ReadTracer
) -> None:
    state = project.module("state")
    n = project.name
    roots = reads_of(tracer, lambda: state.add_entry(1))
    assert f"{n}.state._ENTRIES" in roots
    assert f"{n}.state.Meter.hits" not in roots
    roots = reads_of(tracer, lambda: state.Meter().bump())
    assert {f"{n}.state.Meter.hits", f"{n}.state.Meter"} <= roots
    assert f"{n}.state._ENTRIES" not in roots
    roots = reads_of(tracer, lambda: state.read_limit())
    assert f"{n}.state.LIMIT" in roots
    assert "warnings" in roots  # every test consults the warning filters


def test_reads_through_arguments_that_alias_a_root(project: Project, tracer: ReadTracer) -> None:
    state = project.module("state")
    n = project.name
    entries = state._ENTRIES  # obtained outside the window, like a session fixture
    roots = reads_of(tracer, lambda: state.count_entries(entries))
    assert f"{n}.state._ENTRIES" in roots


def test_string_constants_name_roots(project: Project, tracer: ReadTracer) -> None:
    n = project.name
    project.write(
        f"{n}/patcher.py",
        f"import importlib\ndef peek():\n    mod = importlib.import_module('{n}.state')\n"
        "    return getattr(mod, 'SETTINGS')\n",
    )
    patcher = project.module("patcher")
    tracer.tracker.snapshot()
    roots = reads_of(tracer, patcher.peek)
    assert f"{n}.state.SETTINGS" in roots


def test_environment_reads(tracer: ReadTracer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDERDEP_A", "1")

    def body() -> None:
        assert os.environ.get("ORDERDEP_A") == "1"
        assert "ORDERDEP_B" not in os.environ
        assert os.getenv("ORDERDEP_C") is None
        assert os.environb.get(b"ORDERDEP_D") is None

    roots = reads_of(tracer, body)
    assert {"env:ORDERDEP_A", "env:ORDERDEP_B", "env:ORDERDEP_C", "env:ORDERDEP_D"} <= roots
    assert "env:*" not in roots
    assert "env:*" in reads_of(tracer, lambda: dict(os.environ))


def test_file_reads_listings_and_stats(
    project: Project, tracer: ReadTracer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    project.write("data/a.txt", "a")
    n = project.name

    def body() -> None:
        with open(project.root / "data" / "a.txt") as fh:
            fh.read()
        os.path.exists("data/missing.txt")
        os.listdir(project.root / n)
        os.path.isfile(str(project.home / ".rc"))

    roots = reads_of(tracer, body)
    assert {
        "file:data/a.txt",
        "file:data/missing.txt*",
        f"file:{n}/*",
        "file:~/.rc*",
        "cwd",
    } <= roots
    roots = reads_of(tracer, lambda: os.listdir(project.root))
    assert "file:*" in roots


def test_writes_keep_pre_images_of_files_outside_the_scan(
    project: Project, tracer: ReadTracer
) -> None:
    target = project.tmp / "a" / "b.txt"
    target.parent.mkdir()
    target.write_text("old")
    watcher = tracer.tracker.files
    assert watcher is not None
    watcher.take_pre_images()

    def body() -> None:
        target.write_text("new")
        (project.tmp / "fresh.txt").write_text("x")

    roots = reads_of(tracer, body)
    assert "file:$TMP/a/b.txt" not in roots  # "w" truncates: a write, not a read
    pre = watcher.take_pre_images()
    assert pre["file:$TMP/a/b.txt"] is not None
    assert pre["file:$TMP/fresh.txt"] is None  # did not exist before


def test_imports_random_and_subprocesses(project: Project, tracer: ReadTracer) -> None:
    n = project.name
    project.write(f"{n}/rng.py", "import random\ndef roll():\n    return random.random()\n")

    def body() -> None:
        rng = project.module("rng")
        rng.roll()

    roots = reads_of(tracer, body)
    assert {"sys.modules", "sys.path", "cwd", "random"} <= roots
    roots = reads_of(tracer, lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
    assert {"env:*", "cwd", "file:*"} <= roots


def test_everything_is_put_back_after_the_window(tracer: ReadTracer) -> None:
    stat, environ_get, trace = os.stat, type(os.environ).__getitem__, sys.gettrace()
    seen: list[str] = []

    def outer(frame: Any, event: str, arg: Any) -> None:
        seen.append(frame.f_code.co_name)

    sys.settrace(outer)
    try:
        tracer.start()
        assert os.stat is not stat
        os.path.join("a", "b")
        tracer.stop()
    finally:
        sys.settrace(trace)
    assert "join" in seen  # the tracer that was there keeps being called
    assert os.stat is stat and type(os.environ).__getitem__ is environ_get
    assert sys.gettrace() is trace


def test_narrow_mode_traces_only_inside_windows(project: Project, tracer: ReadTracer) -> None:
    state = project.module("state")
    n = project.name
    tracer.narrow = True
    tracer.start()
    state.add_entry(1)  # outside a window: pytest's own machinery in the real probe
    tracer.trace_on()
    state.read_limit()
    tracer.trace_off()
    roots = tracer.stop()
    assert f"{n}.state.LIMIT" in roots
    assert f"{n}.state._ENTRIES" not in roots


def test_expand_wildcards() -> None:
    known = ["env:A", "env:B", "file:x/1", "file:x/2", "file:y", "pkg.m.X"]
    assert expand(["env:*", "pkg.m.X"], known) == {"env:A", "env:B", "pkg.m.X"}
    assert expand(["file:x/*"], known) == {"file:x/1", "file:x/2"}
    assert expand(["file:y*"], known) == {"file:y"}


@pytest.mark.parametrize("hook", ["trace", "profile", "lsprof"])
def test_every_call_hook_sees_project_code(project: Project, tracer: ReadTracer, hook: str) -> None:
    state = project.module("state")
    n = project.name
    tracer.use_hook(hook)
    roots = reads_of(tracer, lambda: (state.read_limit(), state.Meter().bump()))
    assert {f"{n}.state.LIMIT", f"{n}.state.Meter.hits"} <= roots
    assert (sys.getprofile() is None and sys.gettrace() is None) or hook == "trace"
    tracer.note_values([state._ENTRIES])  # what the pytest hooks hand over
    assert f"{n}.state._ENTRIES" in reads_of(tracer, lambda: tracer.note_values([state._ENTRIES]))


def test_lsprof_leaves_an_active_profiler_alone(project: Project, tracer: ReadTracer) -> None:
    state = project.module("state")
    calls: list[str] = []

    def profiler(frame: Any, event: str, arg: Any) -> None:
        calls.append(event)

    tracer.use_hook("lsprof")
    sys.setprofile(profiler)
    try:
        roots = reads_of(tracer, state.read_limit)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)
    assert f"{project.name}.state.LIMIT" in roots  # seen through the trace fallback
    assert "call" in calls


def test_unknown_hook_is_a_usage_error(tracer: ReadTracer) -> None:
    from orderdep.errors import UsageError

    with pytest.raises(UsageError, match="unknown call hook 'dtrace'"):
        tracer.use_hook("dtrace")


def test_the_import_machinery_reads_sys_path_even_when_nothing_is_imported(
    project: Project, tracer: ReadTracer
) -> None:
    n = project.name
    project.write(
        f"{n}/plugins.py",
        "import importlib.util\n"
        "def is_available(name):\n"
        "    return importlib.util.find_spec(name) is not None\n",
    )
    plugins = project.module("plugins")
    tracer.tracker.snapshot()
    roots = reads_of(tracer, lambda: plugins.is_available("odpkg_not_there"))
    assert {"sys.path", "sys.modules"} <= roots


def test_argparse_reads_the_command_line_and_decimal_code_its_context(
    project: Project, tracer: ReadTracer
) -> None:
    n = project.name
    project.write(
        f"{n}/numbers.py",
        "import argparse\nimport decimal\n"
        "def options():\n"
        "    return argparse.ArgumentParser().parse_known_args()[0]\n"
        "def third():\n"
        "    return decimal.Decimal(1) / decimal.Decimal(3)\n",
    )
    numbers = project.module("numbers")
    tracer.tracker.snapshot()
    assert "sys.argv" in reads_of(tracer, numbers.options)
    assert "decimal" in reads_of(tracer, numbers.third)
