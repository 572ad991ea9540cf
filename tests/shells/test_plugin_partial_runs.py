"""The plugin where users run part of a suite (pytester): node ids, files, --lf, -k, -m,
--deselect and xdist's loadgroup each get the state-setters the dependencies file names,
from other files too, and never run a victim after its polluter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import orderdep.shells.plugin_deps  # noqa: F401  (imported once, not per in-process run)
from orderdep.core.depsfile import Dependency
from orderdep.shells.plugin_collect import Target, missing_files, targets, uncovered_dependees

pytest_plugins = ["pytester"]

# An application with a plugin registry and a settings singleton; its tests in four
# files. Brittle: test_reports.py::TestExport::test_uses_json needs the json exporter
# registered (test_plugins.py), which needs the registry booted (test_boot.py).
# TestPlugins::test_lookup needs the same setter, in its own file. Victims: the
# parametrized test_formats fail after test_settings.py::test_fast_mode.
APP = {
    "app/__init__.py": "",
    "app/registry.py": (
        "REGISTRY = {}\n"
        "def register(name, exporter):\n"
        "    if not REGISTRY.get('ready'):\n"
        "        raise RuntimeError('registry not booted')\n"
        "    REGISTRY[name] = exporter\n"
    ),
    "app/settings.py": "SETTINGS = {'mode': 'safe'}\n",
    "tests/conftest.py": (
        "import pytest\n"
        "from app.settings import SETTINGS\n"
        "@pytest.fixture(scope='session')\n"
        "def settings():\n"
        "    return SETTINGS\n"
    ),
    "tests/test_boot.py": (
        "from app.registry import REGISTRY\n"
        "def test_boot():\n"
        "    REGISTRY['ready'] = True\n"
        "def test_boot_is_idempotent():\n"
        "    assert isinstance(REGISTRY, dict)\n"
    ),
    "tests/test_plugins.py": (
        "import unittest\n"
        "from app.registry import REGISTRY, register\n"
        "class TestPlugins(unittest.TestCase):\n"
        "    @classmethod\n"
        "    def setUpClass(cls):\n"
        "        cls.registry = REGISTRY\n"
        "    def test_add_json(self):\n"
        "        register('json', object())\n"
        "    def test_lookup(self):\n"
        "        self.assertIn('json', self.registry)\n"
        "    def test_empty_name(self):\n"
        "        self.assertNotIn('', self.registry)\n"
    ),
    "tests/test_reports.py": (
        "import pytest\n"
        "from app.registry import REGISTRY\n"
        "@pytest.mark.xdist_group('export')\n"
        "class TestExport:\n"
        "    @pytest.mark.smoke\n"
        "    def test_uses_json(self):\n"
        "        assert 'json' in REGISTRY\n"
        "    @pytest.mark.parametrize('fmt', ['csv', 'xml'])\n"
        "    def test_formats(self, fmt, settings):\n"
        "        assert settings['mode'] == 'safe'\n"
        "def test_title():\n"
        "    assert 'Report'.lower() == 'report'\n"
    ),
    "tests/test_settings.py": (
        "def test_fast_mode(settings):\n"
        "    settings['mode'] = 'fast'\n"
        "def test_defaults():\n"
        "    pass\n"
    ),
    "pytest.ini": "[pytest]\npythonpath = .\nmarkers =\n    smoke: quick checks\n",
}
BRITTLE = "tests/test_reports.py::TestExport::test_uses_json"
LOOKUP = "tests/test_plugins.py::TestPlugins::test_lookup"
SETTER = "tests/test_plugins.py::TestPlugins::test_add_json"
BOOT = "tests/test_boot.py::test_boot"
POLLUTER = "tests/test_settings.py::test_fast_mode"
VICTIMS = [f"tests/test_reports.py::TestExport::test_formats[{f}]" for f in ("csv", "xml")]
DEPS = {
    "schema": "orderdep.deps/1",
    "dependencies": [
        {"test": BRITTLE, "kind": "positive", "dependee": SETTER},
        {"test": LOOKUP, "kind": "positive", "dependee": SETTER},
        {"test": SETTER, "kind": "positive", "dependee": BOOT},
        *({"test": v, "kind": "negative", "dependee": POLLUTER} for v in VICTIMS),
    ],
}
QUIET = ("-p", "no:hypothesispytest", "-p", "no:randomly")
WITH_DEPS = ("--orderdep-deps", "deps.json")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    for name, text in APP.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (pytester.path / "deps.json").write_text(json.dumps(DEPS), encoding="utf-8")
    return pytester


def _ran(result: pytest.RunResult) -> list[str]:
    """Test ids in the order they ran (-v lines ``id PASSED/FAILED``)."""
    out = []
    for line in result.outlines:
        head, _, rest = line.partition(" ")
        if "::" in head and rest.split(" ")[0] in ("PASSED", "FAILED", "ERROR"):
            out.append(head)
    return out


def _assert_dependencies_hold(ran: list[str]) -> None:
    for brittle, setter in [(BRITTLE, SETTER), (LOOKUP, SETTER), (SETTER, BOOT)]:
        if brittle in ran:
            assert setter in ran and ran.index(setter) < ran.index(brittle), ran
    if POLLUTER in ran:
        for victim in VICTIMS:
            assert victim not in ran or ran.index(victim) < ran.index(POLLUTER), ran


# --- the selection ways -----------------------------------------------------------------


def test_original_order_passes(project: pytest.Pytester) -> None:
    project.runpytest(*QUIET).assert_outcomes(passed=11)


def test_node_id_gets_setters_from_other_files_transitively(project: pytest.Pytester) -> None:
    assert project.runpytest(*QUIET, BRITTLE).parseoutcomes().get("failed") == 1
    result = project.runpytest(*QUIET, "-v", BRITTLE, *WITH_DEPS)
    result.assert_outcomes(passed=3, deselected=3)
    assert _ran(result) == [BOOT, SETTER, BRITTLE]
    result.stdout.fnmatch_lines(
        [
            "*collected 6 items / 3 deselected / 3 selected",
            "orderdep: added 2 tests, moved 0 to satisfy 1 dependency",
            f"orderdep: added 2 state-setter(s) from outside the given paths: {BOOT}, {SETTER}",
        ]
    )


def test_node_id_in_the_setters_own_file(project: pytest.Pytester) -> None:
    # The setter shares the brittle's file, which the argument names only in part.
    assert project.runpytest(*QUIET, LOOKUP).parseoutcomes().get("failed") == 1
    result = project.runpytest(*QUIET, "-v", LOOKUP, *WITH_DEPS)
    assert result.parseoutcomes().get("failed") is None
    assert _ran(result) == [BOOT, SETTER, LOOKUP]


def test_file_argument(project: pytest.Pytester) -> None:
    assert project.runpytest(*QUIET, "tests/test_reports.py").parseoutcomes()["failed"] == 1
    result = project.runpytest(*QUIET, "-v", "tests/test_reports.py", *WITH_DEPS)
    result.assert_outcomes(passed=6, deselected=3)
    ran = _ran(result)
    assert ran[:3] == [BOOT, SETTER, BRITTLE]
    _assert_dependencies_hold(ran)


def test_run_from_a_subdirectory_with_relative_arguments(project: pytest.Pytester) -> None:
    tests_dir = project.path / "tests"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tests_dir)
        result = project.runpytest(
            *QUIET, "-v", "test_reports.py::TestExport", "--orderdep-deps", "../deps.json"
        )
    assert result.parseoutcomes().get("failed") is None
    ran = ["tests/" + t for t in _ran(result)]  # -v shows ids relative to the directory
    assert ran[:3] == [BOOT, SETTER, BRITTLE]
    _assert_dependencies_hold(ran)


def test_victim_and_polluter_named_in_the_wrong_order(project: pytest.Pytester) -> None:
    args = [*QUIET, "-v", POLLUTER, "tests/test_reports.py::TestExport::test_formats"]
    assert project.runpytest(*args).parseoutcomes()["failed"] == 2
    result = project.runpytest(*args, *WITH_DEPS)
    result.assert_outcomes(passed=3)
    assert _ran(result) == [*VICTIMS, POLLUTER]
    result.stdout.fnmatch_lines(["orderdep: added 0 tests, moved 1 to satisfy 2 dependencies"])


def test_last_failed_after_a_failing_run(project: pytest.Pytester) -> None:
    args = ["-p", "no:hypothesispytest", "-p", "no:randomly"]
    first = project.runpytest(*args, "tests/test_reports.py", "tests/test_settings.py")
    first.assert_outcomes(passed=5, failed=1)  # the brittle, without its setters
    result = project.runpytest(*args, "-v", "--lf", *WITH_DEPS)
    assert _ran(result) == [BOOT, SETTER, BRITTLE]
    assert result.parseoutcomes()["passed"] == 3
    assert "failed" not in result.parseoutcomes()
    result.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*"])


@pytest.mark.parametrize(
    "selection",
    [
        pytest.param(["-k", "uses_json"], id="-k"),
        pytest.param(["-m", "smoke"], id="-m"),
        pytest.param(["tests/test_reports.py", "-k", "uses_json"], id="file and -k"),
    ],
)
def test_keyword_and_marker_selection(project: pytest.Pytester, selection: list[str]) -> None:
    assert project.runpytest(*QUIET, *selection).parseoutcomes()["failed"] == 1
    result = project.runpytest(*QUIET, "-v", *selection, *WITH_DEPS)
    assert _ran(result) == [BOOT, SETTER, BRITTLE]
    assert result.parseoutcomes().get("failed") is None


def test_deselect_of_a_state_setter(project: pytest.Pytester) -> None:
    args = [*QUIET, "-v", "--deselect", SETTER]
    without = project.runpytest(*args)
    assert without.parseoutcomes()["failed"] == 2  # the brittle and test_lookup
    result = project.runpytest(*args, *WITH_DEPS)
    result.assert_outcomes(passed=11)
    _assert_dependencies_hold(_ran(result))


def test_a_broken_setter_file_is_one_warning_not_a_failed_run(project: pytest.Pytester) -> None:
    (project.path / "tests" / "test_boot.py").write_text("raise ImportError('no boot')\n")
    result = project.runpytest(*QUIET, "-v", BRITTLE, *WITH_DEPS)
    result.stdout.fnmatch_lines(
        ["orderdep: warning: cannot collect 'tests/test_boot.py' for its state-setters*"]
    )
    # The run goes on: the setter that needs the boot fails, the brittle after it too.
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert _ran(result) == [SETTER, BRITTLE]


def test_testmon_selection_across_files(project: pytest.Pytester) -> None:
    pytest.importorskip("testmon")
    args = ["-p", "no:hypothesispytest", "-p", "no:randomly", "--testmon", "-v"]
    project.runpytest_subprocess(*args).assert_outcomes(passed=11)
    # Change only the brittle: testmon selects it alone and skips the setters' files.
    reports = project.path / "tests" / "test_reports.py"
    reports.write_text(
        reports.read_text().replace("assert 'json' in REGISTRY", "assert REGISTRY['json']")
    )
    assert project.runpytest_subprocess(*args).parseoutcomes().get("failed") == 1
    result = project.runpytest_subprocess(*args, *WITH_DEPS)
    assert result.parseoutcomes().get("failed") is None
    assert _ran(result) == [BOOT, SETTER, BRITTLE]


@pytest.mark.parametrize("dist", ["loadgroup", "loadscope", "worksteal"])
def test_xdist_keeps_dependency_groups_on_one_worker(project: pytest.Pytester, dist: str) -> None:
    # Each dependency group is one unit: the brittle with its setters (and, where the
    # mode's scopes join them, the victims with their polluter) on one worker.
    args = ["-p", "no:hypothesispytest", "-p", "randomly", "-n", "2", f"--dist={dist}"]
    for seed in (1, 2):
        result = project.runpytest_subprocess(*args, f"--randomly-seed={seed}", *WITH_DEPS)
        result.assert_outcomes(passed=11)
        result.stdout.fnmatch_lines(
            ["orderdep: * dependency group(s) (* of 11 tests) each kept on one worker*"]
        )


def test_xdist_loadgroup_with_a_node_id(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "-p", "no:hypothesispytest", "-p", "no:randomly", "-n", "2", "--dist=loadgroup",
        BRITTLE, "tests/test_settings.py", *WITH_DEPS,
    )  # fmt: skip
    result.assert_outcomes(passed=5)


# --- the pure parts ---------------------------------------------------------------------


def test_target_covers_paths_classes_and_parameters(tmp_path: Path) -> None:
    (file,) = targets(["tests/test_r.py"], tmp_path)
    assert file.covers(tmp_path, "tests/test_r.py::TestX::test_a[1]")
    assert not file.covers(tmp_path, "tests/test_rr.py::test_a")
    (folder,) = targets(["tests"], tmp_path)
    assert folder.covers(tmp_path, "tests/sub/test_r.py::test_a")
    assert not folder.covers(tmp_path, "other/test_r.py::test_a")
    (cls,) = targets(["tests/test_r.py::TestX"], tmp_path)
    assert cls.covers(tmp_path, "tests/test_r.py::TestX::test_a")
    assert not cls.covers(tmp_path, "tests/test_r.py::TestY::test_a")
    (fn,) = targets(["tests/test_r.py::test_a"], tmp_path)
    assert fn.covers(tmp_path, "tests/test_r.py::test_a[x-1]")
    assert not fn.covers(tmp_path, "tests/test_r.py::test_ab")
    (param,) = targets(["tests/test_r.py::test_a[1]"], tmp_path)
    assert param.covers(tmp_path, "tests/test_r.py::test_a[1]")
    assert not param.covers(tmp_path, "tests/test_r.py::test_a[2]")
    assert Target(tmp_path / "x.py", ("A", "b", "c")).covers(tmp_path, "x.py::A::b") is False


def test_uncovered_dependees_choose_one_alternative_and_follow_chains(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_text("")
    deps = [
        Dependency("b.py::t", "positive", "a.py::s"),
        Dependency("b.py::t", "positive", "c.py::g1", ("c.py::g1", "d.py::g2")),
        Dependency("b.py::t", "positive", "d.py::g2", ("c.py::g1", "d.py::g2")),
        Dependency("a.py::s", "positive", "c.py::boot"),
        Dependency("b.py::v", "negative", "d.py::p"),
    ]
    given = targets(["b.py::t"], tmp_path)
    needed = uncovered_dependees(deps, given, tmp_path)
    assert needed == ["a.py::s", "c.py::boot"]  # the first alternative, then its own need
    assert missing_files(needed, given, tmp_path) == [tmp_path / "a.py", tmp_path / "c.py"]
    # An alternative the arguments already collect is preferred: nothing is missing.
    assert uncovered_dependees(deps, targets(["b.py", "c.py", "d.py"], tmp_path), tmp_path) == []
    # A first alternative whose file is gone is passed over.
    (tmp_path / "a.py").unlink()
    assert uncovered_dependees(deps, given, tmp_path) == ["c.py::g1", "d.py::g2"]
