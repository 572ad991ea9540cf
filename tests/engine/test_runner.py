"""The engine on real projects: exact orders, duplicates, outcomes, and running tests the
way the project itself runs them (rootdir, ini file, conftests, ``sys.path``).

Every behaviour is checked on both backends (``fork`` and ``subprocess``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pytest

from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.errors import CollectionError, UnknownTestsError, UsageError

if TYPE_CHECKING:
    from conftest import EngineFactory, ProjectWriter

RUNNERS = ("fork", "subprocess")


def outcomes(result: OrderResult) -> list[str]:
    """The outcome values of ``result``, one per position."""
    return [r.outcome.value for r in result.results]


def short(test_id: str) -> str:
    """The last part of a node id (``test_x`` or ``test_x[1]``)."""
    return test_id.rsplit("::", 1)[-1]


# -- a project that records what pytest does, in order, into a trace file -------------

TRACE_CONFTEST = """
import os

import pytest


def trace(line):
    path = os.environ.get("OD_TRACE")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\\n")


@pytest.fixture(autouse=True)
def _od_function(request):
    trace("setup " + request.node.nodeid)
    yield
    trace("teardown " + request.node.nodeid)


@pytest.fixture(scope="module", autouse=True)
def _od_module(request):
    trace("module-setup " + request.module.__name__)
    yield
    trace("module-teardown " + request.module.__name__)


@pytest.fixture(scope="class", autouse=True)
def _od_class(request):
    if request.cls is None:
        yield
        return
    trace("class-setup " + request.cls.__name__)
    yield
    trace("class-teardown " + request.cls.__name__)
"""

TRACED_FILES = {
    "conftest.py": TRACE_CONFTEST,
    "tests/test_alpha.py": """
        def test_a1():
            pass


        def test_a2():
            pass


        class TestK:
            def test_k1(self):
                pass

            def test_k2(self):
                pass


        class TestL:
            def test_l1(self):
                pass


        def test_a3():
            pass
    """,
    "tests/test_beta.py": """
        import pytest


        def test_b1():
            pass


        @pytest.mark.parametrize("n", [1, 2])
        def test_p(n):
            assert n in (1, 2)


        class TestM:
            def test_m1(self):
                pass
    """,
}


def expected_trace(order: Sequence[str]) -> list[str]:
    """What the tracing conftest writes when pytest runs ``order`` as one session.

    A model of pytest's setup state: a module or class stays set up while the next test
    lives in it, and is torn down (innermost first) as soon as the next test does not.
    """

    def chain(test: str) -> list[tuple[str, str]]:
        parts = test.split("::")
        module = Path(parts[0]).stem
        out = [("module", module)]
        if len(parts) == 3:
            out.append(("class", parts[1]))
        return [(kind, f"{module}:{name}" if kind == "class" else name) for kind, name in out]

    lines: list[str] = []
    previous: list[tuple[str, str]] = []
    for i, test in enumerate(order):
        current = chain(test)
        common = 0
        while common < min(len(previous), len(current)) and previous[common] == current[common]:
            common += 1
        for kind, name in current[common:]:
            lines.append(f"{kind}-setup {name.split(':')[-1]}")
        lines.append(f"setup {test}")
        lines.append(f"teardown {test}")
        following = chain(order[i + 1]) if i + 1 < len(order) else []
        keep = 0
        while keep < min(len(current), len(following)) and current[keep] == following[keep]:
            keep += 1
        for kind, name in reversed(current[keep:]):
            lines.append(f"{kind}-teardown {name.split(':')[-1]}")
        previous = current[:keep]
    return lines


ALPHA = "tests/test_alpha.py"
BETA = "tests/test_beta.py"
DUP = "tests/test_dup.py"
OUT = "tests/test_outcomes.py"

ZOO_FILES = {
    **TRACED_FILES,
    DUP: """
        import os
        from pathlib import Path

        import pytest

        ROOT = Path(__file__).resolve().parent


        def log(name, line):
            with (ROOT / name).open("a") as fh:
                fh.write(line + "\\n")


        def lines(name):
            path = ROOT / name
            return path.read_text().splitlines() if path.exists() else []


        @pytest.fixture(autouse=True)
        def auto(request):
            log("auto.log", "setup " + request.node.name)
            yield
            log("auto.log", "teardown " + request.node.name)


        @pytest.fixture
        def counted():
            log("counts.log", "setup")
            yield
            log("counts.log", "teardown")


        @pytest.fixture
        def bag():
            return []


        def test_counted(counted):
            pass


        def test_env(monkeypatch):
            assert "OD_DUP" not in os.environ
            monkeypatch.setenv("OD_DUP", "1")


        def test_tmp(tmp_path):
            assert list(tmp_path.iterdir()) == []
            (tmp_path / "file").write_text("x")
            assert str(tmp_path) not in lines("tmp_paths.log")
            log("tmp_paths.log", str(tmp_path))


        def test_bag(bag):
            assert bag == []
            bag.append(1)


        def test_check():
            assert lines("counts.log") == ["setup", "teardown"] * 2
            assert len(lines("tmp_paths.log")) == 2
            twice = [n for n in ("test_counted", "test_env", "test_tmp", "test_bag") for _ in "ab"]
            assert lines("auto.log") == [
                f"{when} {n}" for n in twice for when in ("setup", "teardown")
            ] + ["setup test_check"]
    """,
    OUT: """
        import sys

        import pytest


        @pytest.fixture
        def broken_setup():
            raise RuntimeError("setup boom")


        @pytest.fixture
        def broken_teardown():
            yield
            raise RuntimeError("teardown boom")


        def test_pass():
            pass


        def test_fail():
            assert [1, 2, 3] == [1, 2, 4]


        def test_fail_msg():
            assert 1 == 2, "the custom reason"


        def test_setup_error(broken_setup):
            pass


        def test_teardown_error(broken_teardown):
            pass


        def test_fail_and_teardown_error(broken_teardown):
            assert False, "call failed first"


        def test_skip():
            pytest.skip("skipped inside")


        @pytest.mark.skip(reason="skipped by mark")
        def test_skip_mark():
            pass


        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert 0


        @pytest.mark.xfail(reason="fixed already")
        def test_xpass():
            pass


        @pytest.mark.xfail(strict=True, reason="must fail")
        def test_xpass_strict():
            pass


        def test_sys_exit():
            sys.exit(1)


        def test_capture(capfd, caplog):
            import logging
            import os

            print("hello")
            os.write(1, b"raw\\n")
            logging.getLogger("od").warning("logged")
            assert capfd.readouterr().out == "hello\\nraw\\n"
            assert "logged" in caplog.text


        def test_long():
            raise ValueError("x" * 5000)
    """,
}

TRACED_IDS = [
    f"{ALPHA}::test_a1",
    f"{ALPHA}::test_a2",
    f"{ALPHA}::TestK::test_k1",
    f"{ALPHA}::TestK::test_k2",
    f"{ALPHA}::TestL::test_l1",
    f"{ALPHA}::test_a3",
    f"{BETA}::test_b1",
    f"{BETA}::test_p[1]",
    f"{BETA}::test_p[2]",
    f"{BETA}::TestM::test_m1",
]


class Zoo:
    """A project and an engine on it, shared by the tests of one backend."""

    def __init__(self, root: Path, engine: Engine, trace: Path) -> None:
        self.root = root
        self.engine = engine
        self.trace = trace

    def run(self, order: list[str]) -> tuple[OrderResult, list[str]]:
        """Run ``order``; return its result and the trace lines the tests wrote."""
        self.trace.write_text("")
        result = self.engine.run(order)
        return result, self.trace.read_text().splitlines()


@pytest.fixture(scope="module", params=RUNNERS)
def zoo(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    files_writer: Callable[[Path, dict[str, str]], Path],
) -> Iterator[Zoo]:
    base = tmp_path_factory.mktemp(f"zoo-{request.param}")
    root = files_writer(base / "proj", ZOO_FILES)
    trace = base / "trace.log"
    config = EngineConfig(root, runner=request.param, extra_env={"OD_TRACE": str(trace)})
    with Engine(config) as engine:
        yield Zoo(root, engine, trace)


def test_suite_is_the_collection_in_original_order(zoo: Zoo) -> None:
    suite = zoo.engine.suite
    assert suite.ids[: len(TRACED_IDS)] == TRACED_IDS
    assert suite.ids[len(TRACED_IDS)].startswith(f"{DUP}::")
    assert suite.rootdir == str(zoo.root)
    k1 = suite[f"{ALPHA}::TestK::test_k1"]
    assert (k1.module, k1.cls, k1.file) == (ALPHA, f"{ALPHA}::TestK", ALPHA)
    assert suite[f"{BETA}::test_p[2]"].cls is None
    assert list(suite.groups("class", TRACED_IDS)) == [
        ALPHA,
        f"{ALPHA}::TestK",
        f"{ALPHA}::TestL",
        BETA,
        f"{BETA}::TestM",
    ]


INTERLEAVED = [
    f"{BETA}::test_p[2]",
    f"{ALPHA}::TestK::test_k2",
    f"{BETA}::TestM::test_m1",
    f"{ALPHA}::test_a1",
    f"{ALPHA}::TestL::test_l1",
    f"{ALPHA}::TestK::test_k1",
    f"{BETA}::test_b1",
    f"{ALPHA}::test_a3",
]


@pytest.mark.parametrize(
    "order",
    [TRACED_IDS, TRACED_IDS[::-1], INTERLEAVED],
    ids=["original", "reversed", "interleaved"],
)
def test_exact_order_with_fixture_scopes_as_pytest(zoo: Zoo, order: list[str]) -> None:
    result, trace = zoo.run(order)
    assert [r.test for r in result.results] == order
    assert outcomes(result) == ["passed"] * len(order)
    assert result.runner == zoo.engine.runner
    assert trace == expected_trace(order)


def test_duplicates_are_set_up_and_torn_down_like_separate_items(zoo: Zoo) -> None:
    order = [
        f"{ALPHA}::test_a1",
        f"{ALPHA}::test_a1",
        f"{ALPHA}::TestK::test_k1",
        f"{ALPHA}::TestK::test_k1",
        f"{BETA}::test_p[1]",
        f"{BETA}::test_b1",
        f"{BETA}::test_p[1]",
        f"{ALPHA}::test_a1",
    ]
    result, trace = zoo.run(order)
    assert [r.test for r in result.results] == order
    assert outcomes(result) == ["passed"] * len(order)
    assert trace == expected_trace(order)
    assert trace.count(f"setup {ALPHA}::test_a1") == 3


def test_duplicates_get_fresh_function_fixtures(zoo: Zoo) -> None:
    tests = ["test_counted", "test_env", "test_tmp", "test_bag"]
    order = [f"{DUP}::{t}" for t in tests for _ in (0, 1)] + [f"{DUP}::test_check"]
    result, _ = zoo.run(order)
    assert len(result) == len(order)
    assert [(short(r.test), r.outcome.value, r.message) for r in result.results] == [
        (short(t), "passed", "") for t in order
    ]


def test_duplicate_checks_can_fail(zoo: Zoo) -> None:
    # The same checks see a third setup when the fixture really runs three times.
    order = [f"{DUP}::test_counted"] * 3 + [f"{DUP}::test_check"]
    result, _ = zoo.run(order)
    assert outcomes(result) == ["passed"] * 3 + ["failed"]
    assert "setup" in result.results[-1].message


EXPECTED_OUTCOMES = {
    "test_pass": ("passed", ""),
    "test_fail": ("failed", "assert [1, 2, 3] == [1, 2, 4]"),
    "test_fail_msg": ("failed", "AssertionError: the custom reason"),
    "test_setup_error": ("error", "RuntimeError: setup boom"),
    "test_teardown_error": ("error", "RuntimeError: teardown boom"),
    "test_fail_and_teardown_error": ("failed", "AssertionError: call failed first"),
    "test_skip": ("skipped", "Skipped: skipped inside"),
    "test_skip_mark": ("skipped", "Skipped: skipped by mark"),
    "test_xfail": ("xfailed", "assert 0"),
    "test_xpass": ("xpassed", ""),
    "test_xpass_strict": ("failed", "[XPASS(strict)] must fail"),
    "test_sys_exit": ("failed", "SystemExit: 1"),
    "test_capture": ("passed", ""),  # capture and logging work in every backend
}


@pytest.fixture(scope="module")
def outcome_run(zoo: Zoo) -> OrderResult:
    order = [f"{OUT}::{name}" for name in EXPECTED_OUTCOMES] + [f"{OUT}::test_long"]
    return zoo.engine.run(order)


def test_every_outcome_with_its_message(outcome_run: OrderResult) -> None:
    got = {short(r.test): r for r in outcome_run.results}
    for name, (outcome, first_line) in EXPECTED_OUTCOMES.items():
        result = got[name]
        assert result.outcome is Outcome(outcome), name
        lines = result.message.splitlines()
        assert (lines[0] if lines else "") == first_line, name
        assert result.duration >= 0.0


def test_long_messages_are_cut(outcome_run: OrderResult) -> None:
    long = outcome_run.results[-1]
    assert long.outcome is Outcome.FAILED
    assert long.message.startswith("ValueError: xxx")
    assert len(long.message) <= 500


def test_messages_are_one_line(outcome_run: OrderResult) -> None:
    for r in outcome_run.results:
        assert "\n" not in r.message, (r.test, r.message)


def test_run_many_keeps_input_order_and_reports_each(zoo: Zoo) -> None:
    orders = [
        [f"{OUT}::test_fail"],
        [f"{OUT}::test_pass", f"{OUT}::test_pass"],
        [f"{BETA}::test_b1"],
    ]
    seen: list[tuple[int, list[str]]] = []
    before = zoo.engine.orders_run
    results = zoo.engine.run_many(orders, on_result=lambda i, r: seen.append((i, r.order)))
    assert [r.order for r in results] == orders
    assert [outcomes(r) for r in results] == [["failed"], ["passed", "passed"], ["passed"]]
    assert sorted(seen) == list(enumerate(orders))
    assert zoo.engine.orders_run == before + 3
    assert zoo.engine.run_many([]) == []


def test_unknown_ids_are_refused_before_anything_runs(zoo: Zoo) -> None:
    before = zoo.engine.orders_run
    with pytest.raises(UnknownTestsError) as info:
        zoo.engine.run_many([[f"{ALPHA}::test_a1"], [f"{ALPHA}::test_a9", "nope.py::x"]])
    assert info.value.unknown == [f"{ALPHA}::test_a9", "nope.py::x"]
    assert f"{ALPHA}::test_a1" in info.value.suggestions[f"{ALPHA}::test_a9"]
    assert "orderdep collect" in str(info.value)
    assert zoo.engine.orders_run == before


# -- the unittest and doctest items also run twice ------------------------------------

UNUSUAL_FILES = {
    "pytest.ini": """
        [pytest]
        addopts = --doctest-modules
    """,
    "test_unusual.py": '''
        import unittest

        LOG = []


        class TestCase(unittest.TestCase):
            def setUp(self):
                LOG.append("setUp")

            def tearDown(self):
                LOG.append("tearDown")

            def test_u(self):
                LOG.append("call")


        def test_log():
            assert LOG == ["setUp", "call", "tearDown"] * 2


        def add(a, b):
            """
            >>> add(1, 2)
            3
            """
            return a + b
    ''',
}


def test_duplicate_unittest_test_runs_setup_and_teardown_twice(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    engine = make_engine(make_project(UNUSUAL_FILES), runner=runner)
    order = ["test_unusual.py::TestCase::test_u"] * 2 + ["test_unusual.py::test_log"]
    assert outcomes(engine.run(order)) == ["passed"] * 3


def test_duplicate_doctest_passes_twice(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    engine = make_engine(make_project(UNUSUAL_FILES), runner=runner)
    doctest_id = "test_unusual.py::test_unusual.add"
    assert doctest_id in engine.suite
    order = [doctest_id, "test_unusual.py::test_log", doctest_id]
    assert outcomes(engine.run(order)) == ["passed", "failed", "passed"]


# -- tests run as the project runs them ------------------------------------------------

WHERE_FILES = {
    "pytest.ini": """
        [pytest]
        addopts = -q --strict-markers
        markers =
            slowish: a marker that only exists in this ini file
        testpaths = tests
    """,
    "app.py": "NAME = 'app'\n",
    "conftest.py": """
        import pytest


        @pytest.fixture
        def from_root_conftest():
            return "root"
    """,
    "tests/conftest.py": """
        import pytest


        @pytest.fixture
        def from_tests_conftest(from_root_conftest):
            return from_root_conftest + "+tests"
    """,
    "tests/test_where.py": """
        import json
        import os
        import sys
        from pathlib import Path

        import pytest

        import app


        @pytest.mark.slowish
        def test_where(request, from_tests_conftest):
            config = request.config
            root = str(config.rootpath)

            def rel(p):
                return str(p).replace(root, "<root>")

            data = {
                "rootdir": Path(root) == Path(__file__).resolve().parent.parent,
                "inifile": rel(config.inipath),
                "cwd": rel(os.getcwd()),
                "sys_path": [rel(p) for p in sys.path],
                "verbose": config.option.verbose,
                "strict_markers": config.option.strict_markers,
                "markers": [m.split(":")[0] for m in config.getini("markers")],
                "testpaths": config.getini("testpaths"),
                "fixture": from_tests_conftest,
                "module": __name__,
                "app": rel(app.__file__),
            }
            Path(os.environ["OD_DUMP"]).write_text(json.dumps(data, sort_keys=True))
    """,
    "other/test_outside_testpaths.py": """
        def test_not_collected():
            pass
    """,
}


def _direct_pytest_view(project: Path, dump: Path) -> dict[str, Any]:
    """What the test sees under a plain ``python -m pytest`` from the project root."""
    env = {**os.environ, "OD_DUMP": str(dump)}  # the environment the engine passes on
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:random_order"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    view: dict[str, Any] = json.loads(dump.read_text())
    return view


def test_tests_see_the_same_world_as_under_python_m_pytest(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str, tmp_path: Path
) -> None:
    project = make_project(WHERE_FILES)
    direct_copy = tmp_path / "direct"
    shutil.copytree(project, direct_copy)
    expected = _direct_pytest_view(direct_copy, tmp_path / "direct.json")
    assert expected["rootdir"] is True and expected["cwd"] == "<root>"

    dump = tmp_path / "engine.json"
    engine = make_engine(project, runner=runner, extra_env={"OD_DUMP": str(dump)})
    assert engine.suite.ids == ["tests/test_where.py::test_where"]  # testpaths honoured
    result = engine.run(["tests/test_where.py::test_where"])
    assert outcomes(result) == ["passed"], result.results[0].message
    assert json.loads(dump.read_text()) == expected


PYTHONPATH_FILES = {
    "src/pkg/__init__.py": "VALUE = 42\n",
    "tests/test_pkg.py": """
        import pkg


        def test_value():
            assert pkg.VALUE == 42
    """,
}


def test_src_layout_needs_pythonpath(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    project = make_project(PYTHONPATH_FILES)
    with pytest.raises(CollectionError) as info:
        make_engine(project, runner=runner).suite  # noqa: B018
    message = str(info.value)
    assert "tests/test_pkg.py" in message
    assert "ModuleNotFoundError: No module named 'pkg'" in message
    assert "--pythonpath" in message

    engine = make_engine(project, runner=runner, pythonpath=("src",))
    assert outcomes(engine.run(["tests/test_pkg.py::test_value"])) == ["passed"]


def test_exitfirst_in_addopts_does_not_stop_the_order(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    project = make_project(
        {
            "pytest.ini": """
                [pytest]
                addopts = -x -q
            """,
            "test_x.py": """
                def test_f1():
                    assert False


                def test_ok():
                    pass


                def test_f2():
                    assert False
            """,
        }
    )
    engine = make_engine(project, runner=runner)
    order = ["test_x.py::test_f1", "test_x.py::test_ok", "test_x.py::test_f2", "test_x.py::test_ok"]
    assert outcomes(engine.run(order)) == ["failed", "passed", "failed", "passed"]


def test_fork_falls_back_to_forking_before_collection_when_collection_leaves_threads(
    make_project: ProjectWriter,
) -> None:
    project = make_project(
        {
            "conftest.py": """
                import threading

                threading.Thread(target=threading.Event().wait, name="od-idle", daemon=True).start()
            """,
            "test_t.py": """
                def test_t():
                    pass
            """,
        }
    )
    notices: list[str] = []
    with Engine(EngineConfig(project, runner="fork"), notice=notices.append) as engine:
        result = engine.run(["test_t.py::test_t"])
    assert engine.runner == "prefork" and result.runner == "prefork"
    assert outcomes(result) == ["passed"]
    assert len(notices) == 1
    assert "od-idle (started at conftest.py:3)" in notices[0]
    assert "forking before it instead" in notices[0]


def test_a_plugin_that_starts_threads_as_it_loads_leaves_fresh_processes(
    make_project: ProjectWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forking before collection is no safer when a plugin starts a thread as pytest
    loads it: then every order runs in a fresh pytest."""
    project = make_project(
        {
            "threadplugin.py": """
                import threading

                threading.Thread(target=threading.Event().wait, name="od-plugin", daemon=True).start()
            """,
            "test_t.py": """
                def test_t():
                    pass
            """,
        }
    )
    monkeypatch.setenv("PYTHONPATH", str(project))
    notices: list[str] = []
    config = EngineConfig(project, runner="fork", pytest_args=("-p", "threadplugin"))
    with Engine(config, notice=notices.append) as engine:
        result = engine.run(["test_t.py::test_t"])
    assert engine.runner == "subprocess" and result.runner == "subprocess"
    assert outcomes(result) == ["passed"]
    assert any("cannot fork before collection either" in n and "od-plugin" in n for n in notices)


def test_pytest_cache_does_not_leak_between_orders(
    make_project: ProjectWriter, make_engine: EngineFactory, runner: str
) -> None:
    project = make_project(
        {
            "test_c.py": """
                def test_set(request):
                    request.config.cache.set("od/key", 1)


                def test_get(request):
                    assert request.config.cache.get("od/key", None) is None
            """
        }
    )
    engine = make_engine(project, runner=runner)
    assert outcomes(engine.run(["test_c.py::test_set", "test_c.py::test_get"])) == [
        "passed",
        "failed",
    ]
    assert outcomes(engine.run(["test_c.py::test_get"])) == ["passed"]


def test_last_failed_in_addopts_does_not_shrink_later_orders(
    make_project: ProjectWriter, make_engine: EngineFactory
) -> None:
    project = make_project(
        {
            "pytest.ini": """
                [pytest]
                addopts = --lf
            """,
            "test_lf.py": """
                def test_fail():
                    assert False


                def test_pass():
                    pass
            """,
        }
    )
    engine = make_engine(project, runner="subprocess")
    assert outcomes(engine.run(["test_lf.py::test_fail"])) == ["failed"]
    second = engine.run(["test_lf.py::test_pass", "test_lf.py::test_fail"])
    assert outcomes(second) == ["passed", "failed"]


# -- the configuration every backend starts pytest with -------------------------------


def test_config_validation(tmp_path: Path) -> None:
    EngineConfig(tmp_path, runner="subprocess", jobs=3, timeout=0.5)
    with pytest.raises(UsageError, match="does not exist"):
        EngineConfig(tmp_path / "missing")
    with pytest.raises(UsageError, match="unknown runner 'thread'"):
        EngineConfig(tmp_path, runner="thread")
    with pytest.raises(UsageError, match="--jobs must be at least 1, got 0"):
        EngineConfig(tmp_path, jobs=0)
    with pytest.raises(UsageError, match="--timeout must be a positive number of seconds, got -1"):
        EngineConfig(tmp_path, timeout=-1)
    with pytest.raises(UsageError, match="cannot run --python"):
        EngineConfig(tmp_path, python=str(tmp_path / "no-python"))


def test_another_python_is_started_once_for_all_its_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(cmd: list[str], *args: Any, **kwargs: Any) -> Any:
        started.append(cmd)
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    other = sys.executable  # the target; orderdep itself seems to run elsewhere
    monkeypatch.setattr(sys, "executable", str(tmp_path / "orderdep-python"))
    config = EngineConfig(tmp_path, python=other)
    here = {m for m in ("pytest_randomly", "random_order") if importlib.util.find_spec(m)}
    assert config.present_plugins == here
    assert config.has_xdist == (importlib.util.find_spec("xdist") is not None)
    config.pytest_command(tmp_path / "cache")
    assert [cmd[0] for cmd in started] == [other]  # one start answers every question


@pytest.mark.parametrize("timeout", [float("nan"), float("inf")])
def test_config_refuses_a_timeout_that_is_not_a_number_of_seconds(
    tmp_path: Path, timeout: float
) -> None:
    with pytest.raises(UsageError, match="--timeout"):
        EngineConfig(tmp_path, timeout=timeout)


def test_pytest_command(tmp_path: Path) -> None:
    config = EngineConfig(
        tmp_path,
        pytest_args=("-x", "--maxfail=3", "-m", "fast"),
        pythonpath=("src", "lib"),
        rootdir="here",
    )
    cmd = config.pytest_command(tmp_path / "cache")
    assert cmd[:3] == [sys.executable, "-m", "pytest"]
    # orderdep's plugin first: it redirects editable installs before a user's -p imports
    assert cmd[3:5] == ["-p", "orderdep.engine.childplugin"]
    assert cmd[5:9] == ["-x", "--maxfail=3", "-m", "fast"]
    rest = cmd[9:]
    # Our options come after the user's, so the last word on maxfail is ours.
    assert rest.index("--maxfail=0") > 0
    assert "--tb=line" in rest  # only the message is kept: a one-line report is enough
    assert "no:orderdep" not in cmd
    assert "no:stepwise" in rest
    assert f"cache_dir={tmp_path / 'cache'}" in rest
    assert rest[rest.index("--rootdir") + 1] == "here"
    assert "pythonpath=src lib" in rest
    # The reordering and distributing plugins installed here are switched off.
    if importlib.util.find_spec("pytest_randomly"):
        assert "no:randomly" in rest
    if importlib.util.find_spec("random_order"):
        assert "no:random_order" in rest
    if importlib.util.find_spec("xdist"):
        assert rest[rest.index("-n") + 1] == "0"


def test_child_env_overrides_and_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    monkeypatch.setenv("OD_FROM_OUTSIDE", "1")
    config = EngineConfig(tmp_path, extra_env={"OD_EXTRA": "x", "HOME": "/nowhere"})
    env = config.child_env({"HOME": "/sandbox/home"})
    assert env["OD_FROM_OUTSIDE"] == "1" and env["OD_EXTRA"] == "x"
    assert env["HOME"] == "/sandbox/home"
    assert "PYTEST_XDIST_WORKER" not in env
    # What a fresh `python -m pytest` from a shell would see: no colour setting added.
    assert "PY_COLORS" not in env


def test_orderdep_options_in_addopts_do_not_break_the_engine(
    make_project: ProjectWriter, make_engine: EngineFactory
) -> None:
    """A project that always applies its deps file (addopts/ini) still runs exact orders."""
    project = make_project(
        {
            "pytest.ini": "[pytest]\naddopts = --orderdep-deps deps.json\norderdep_deps = deps.json\n",
            "deps.json": '{"schema": "orderdep.deps/1", "dependencies": '
            '[{"test": "test_a.py::test_b", "kind": "positive", "dependee": "test_a.py::test_a"}]}',
            "test_a.py": "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
        }
    )
    engine = make_engine(project)
    result = engine.run(["test_a.py::test_b"])
    assert [r.test for r in result.results] == ["test_a.py::test_b"]
    assert [r.outcome for r in result.results] == [Outcome.PASSED]


def test_a_traceback_style_given_to_orderdep_is_kept(tmp_path: Path) -> None:
    cmd = EngineConfig(tmp_path, pytest_args=("--tb=long",)).pytest_command(tmp_path / "c")
    assert "--tb=long" in cmd and "--tb=line" not in cmd
