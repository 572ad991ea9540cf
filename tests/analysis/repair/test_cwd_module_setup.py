"""A module's ``setup_module`` moves to another directory and never back: the tests of
other modules that read files by relative path fail after it. A fixture saving the
directory when each test starts saves the moved one, and one moving every test back
breaks the module's own tests; the fix saves it before each module and puts it back
after it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import plain_outcomes, repaired
from tests.analysis.repair.test_setter_fixtures import _write

from orderdep.core.report import ODFinding

FILES = {
    "data/greeting.txt": "hello\n",
    "tests/odf/sample/readme.txt": "sample\n",
    "tests/odf/test_roundtrip.py": """
        import os

        HERE = os.path.dirname(__file__)


        def setup_module():
            os.chdir(os.path.join(HERE, "sample"))


        def test_roundtrip():
            assert open("readme.txt").read() == "sample\\n"
    """,
    "tests/tools/test_count.py": """
        def test_greeting():
            assert open("data/greeting.txt").read() == "hello\\n"


        def test_greeting_again():
            assert open("data/greeting.txt").read().strip() == "hello"
    """,
}
POLLUTER = "tests/odf/test_roundtrip.py::test_roundtrip"
VICTIM, OTHER = (
    "tests/tools/test_count.py::test_greeting",
    "tests/tools/test_count.py::test_greeting_again",
)


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_every_test_starts_where_the_run_starts(tmp_path: Path) -> None:
    root = _write(tmp_path / "p", FILES)
    finding = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
    orders = [[POLLUTER, VICTIM], [VICTIM, POLLUTER]]
    new = repaired(root, finding, orders, tmp_path / "plain", strategy="fixture")
    assert list(new) == ["tests/conftest.py"]
    conftest = new["tests/conftest.py"]
    assert '@pytest.fixture(scope="module", autouse=True)' in conftest
    assert "    saved = os.getcwd()\n    yield\n    os.chdir(saved)\n" in conftest
    # the module's other victim, after the same polluter, passes with the same fixture
    (outcomes,) = plain_outcomes(root, [[POLLUTER, OTHER]], tmp_path / "plain-other")
    assert outcomes == {POLLUTER: "passed", OTHER: "passed"}
