"""``orderdep detect --changed`` on a git project whose pull request adds a polluter,
``--junitxml``, GitHub Actions annotations, and runs that continue each other."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

import pytest
from clitools import git, one_line, write_files

from orderdep.core.report import load_report
from orderdep.shells.ci import locate_test

if TYPE_CHECKING:
    from conftest import CliRunner

VICTIM = "tests/test_a_views.py::test_render_hides_tracebacks"
POLLUTER = "tests/test_zz_debug.py::TestDebugToolbar::test_enable_debug"

# A small web application's tests: a settings singleton, a template registry filled at
# import time, a unittest TestCase with setUpClass, parametrized views.
BASE = {
    "pytest.ini": "[pytest]\n",
    "webapp/__init__.py": "",
    "webapp/settings.py": "SETTINGS = {'debug': False, 'lang': 'en'}\n",
    "webapp/views.py": """
        from webapp.settings import SETTINGS

        TEMPLATES = {"home": "<h1>{}</h1>", "error": "<p>{}</p>"}

        def render(name, value):
            if SETTINGS["debug"]:
                return TEMPLATES[name].format(value) + "<pre>traceback</pre>"
            return TEMPLATES[name].format(value)
    """,
    "tests/conftest.py": """
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    """,
    "tests/test_a_views.py": """
        import pytest
        from webapp.views import render

        def test_render_hides_tracebacks():
            assert "traceback" not in render("error", "oops")

        @pytest.mark.parametrize("name", ["home", "error"])
        def test_render_wraps(name):
            assert render(name, "x").startswith("<")
    """,
    "tests/test_b_settings.py": """
        import unittest
        from webapp.settings import SETTINGS

        class TestSettings(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                cls.settings = SETTINGS

            def test_language(self):
                self.assertEqual(self.settings["lang"], "en")

            def test_keys(self):
                self.assertIn("debug", self.settings)
    """,
    "tests/test_c_misc.py": """
        def test_one():
            assert 1

        def test_two():
            assert 2
    """,
}
PR = {
    "tests/test_zz_debug.py": """
        from webapp.settings import SETTINGS

        class TestDebugToolbar:
            def test_enable_debug(self):
                SETTINGS["debug"] = True
                assert SETTINGS["debug"]
    """
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project on branch ``feature``, one commit after ``main``: the new polluter."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    root = write_files(tmp_path / "proj", BASE)
    (root / ".gitignore").write_text(".orderdep/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    write_files(root, PR)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "add a debug toolbar test")
    return root


def test_changed_finds_the_victim_of_a_new_polluter(
    cli: CliRunner, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    xml = tmp_path / "orderdep.xml"
    code, out, err = cli(
        "detect", repo, "--changed", "--base", "main", "--budget", "60", "--junitxml", xml
    )
    assert code == 1, err
    assert (
        "orderdep: --changed since main: 1 test(s) in changed files, 0 more covering "
        "changed lines; their pairs with every other test run first"
    ) in err
    report = load_report(repo / ".orderdep" / "report.json")
    assert [f.test for f in report.od_tests] == [VICTIM]
    assert report.stats.strategies[:2] == ["original", "changed-pairs"]
    assert report.stats.extras["changed_tests"] == 1
    assert report.stats.extras["changed_pairs"] == 2 * (len(report.tests) - 1)
    # JUnit XML: the victim a failing test case whose message ends with the command.
    cases = ET.parse(xml).getroot().findall("./testsuite/testcase")
    assert [(c.get("file"), c.get("name")) for c in cases] == [
        ("tests/test_a_views.py", "test_render_hides_tracebacks")
    ]
    message = cases[0].find("failure").get("message")  # type: ignore[union-attr]
    command = message.split("reproduce: ", 1)[1]
    # The GitHub annotation points at the test's def line and carries the same command.
    (annotation,) = [ln for ln in out.splitlines() if ln.startswith("::error ")]
    assert annotation.startswith(
        "::error file=tests/test_a_views.py,line=4,title=orderdep%3A tests/test_a_views.py%3A%3A"
    )
    assert annotation.endswith(f"reproduce: {command}")
    # The command runs as printed and fails the victim again.
    argv = shlex.split(command)
    assert argv[0] == "orderdep"
    code, rerun, _ = cli(*argv[1:])
    assert code == 1
    assert "FAIL" in rerun.upper()


def test_nothing_changed_nothing_found_and_the_xml_passes(
    cli: CliRunner, repo: Path, tmp_path: Path
) -> None:
    git(repo, "checkout", "-q", "main")  # before the pull request: no polluter
    xml = tmp_path / "orderdep.xml"
    code, _, err = cli("detect", repo, "--changed", "--base", "HEAD", "--strategy", "reverse",
                       "--junitxml", xml)  # fmt: skip
    assert code == 0, err
    assert "orderdep: --changed since HEAD: no test touched; running the usual search" in err
    (case,) = ET.parse(xml).getroot().findall("./testsuite/testcase")
    assert case.find("failure") is None


def test_a_second_run_continues_where_the_first_stopped(cli: CliRunner, repo: Path) -> None:
    args = ["detect", repo, "--changed", "--base", "main", "--strategy", "tuscan",
            "--confirm-runs", "1"]  # fmt: skip
    progress = repo / ".orderdep" / "ci-progress.json"
    n_pairs = 7  # orders of changed-pairs: one per other test (8 tests)
    code, _, err = cli(*args, "--max-orders", str(1 + n_pairs + 3))
    assert code == 1, err
    (first,) = json.loads(progress.read_text()).values()
    assert first == {"changed-pairs": n_pairs, "tuscan": 3}
    code, _, err = cli(*args, "--max-orders", str(1 + n_pairs + 3))
    assert code == 1, err
    # The same orders are taken from the store; tuscan goes on from its fourth order.
    assert "orderdep: resumed: " in err
    (second,) = json.loads(progress.read_text()).values()
    assert second == {"changed-pairs": n_pairs, "tuscan": 6}


def test_bad_base_and_base_without_changed(cli: CliRunner, repo: Path) -> None:
    code, _, err = cli("detect", repo, "--changed", "--base", "no-such-ref")
    assert code == 2
    assert one_line(err).startswith(
        "orderdep: error: --base 'no-such-ref' is not a revision of the repository at "
    )
    assert one_line(err).endswith("(in CI fetch it first, e.g. `git fetch origin main`)")
    code, _, err = cli("detect", repo, "--base", "main")
    assert code == 2
    assert one_line(err) == (
        "orderdep: error: --base only applies with --changed; add --changed or drop --base"
    )


def test_test_location_finds_methods_and_parametrized_tests(repo: Path) -> None:
    assert locate_test(repo, POLLUTER) == ("tests/test_zz_debug.py", 4)
    assert locate_test(repo, "tests/test_a_views.py::test_render_wraps[home]") == (
        "tests/test_a_views.py",
        8,
    )
    assert locate_test(repo, "tests/gone.py::test_x") == ("tests/gone.py", 1)


def test_tests_covering_changed_code_count_as_touched(cli: CliRunner, repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    code, _, err = cli("coverage", repo)  # per-test coverage of the base version
    assert code == 0, err
    git(repo, "checkout", "-q", "feature")
    views = repo / "webapp" / "views.py"
    text = views.read_text()
    last = "    return TEMPLATES[name].format(value)\n"  # the line every render test runs
    assert text.endswith(last)
    views.write_text(text[: -len(last)] + last.replace("(value)", "(value).strip()"))
    code, _, err = cli("detect", repo, "--changed", "--base", "main", "--strategy", "reverse")
    # The new test's file, and the render tests that ran the changed line.
    assert (
        "orderdep: --changed since main: 1 test(s) in changed files, 3 more covering changed lines"
    ) in err
