"""The state-setters of a brittle as cleaner donors, minimised one at a time: a suite
whose every screen is slow (a port it binds at import restarts its test processes)
does not pay for every donor when the first one's statements work."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import pytest
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.cleaners import Cleaners
from orderdep.analysis.repair.candidates.sources import read_function
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.verify.verify import Target
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

M = "tests/test_mode.py::"
FILES = {
    "app.py": "MODE = {}\n",
    "tests/test_mode.py": """
        import app


        def test_set_a():
            app.MODE["a"] = 1
            assert app.MODE


        def test_set_b():
            app.MODE["b"] = 2


        def test_checks_only():
            assert True


        def test_reads():
            assert app.MODE
        """,
}


def _cleaners(tmp_path: Path, setters: list[str], works_with: str) -> tuple[Cleaners, list[str]]:
    project = write_files(tmp_path / "proj", FILES)
    said: list[str] = []

    def screen(
        target: Target,
        text: str,
        module: Optional[str],
        fixtures: Sequence[str] = (),
        call: bool = False,
    ) -> bool:
        assert call  # where the patch runs them: after the test's set-up
        return works_with in text

    finding = ODFinding(M + "test_reads", "brittle", state_setters=setters)
    target = Target(M + "test_reads", [[M + "test_reads"]], [[setters[0], M + "test_reads"]])
    victim = read_function(project, M + "test_reads")
    return Cleaners(project, screen, said.append, finding, "brittle", target, victim, [], []), said


def test_the_first_donor_that_works_is_the_only_one_minimised(tmp_path: Path) -> None:
    donors, said = _cleaners(tmp_path, [M + "test_set_a", M + "test_set_b"], 'MODE["a"]')
    first = donors.take()
    assert said == [f"minimising the statements of state-setter {M}test_set_a"]
    assert first and all(c.description.startswith(f"the statement of state-setter {M}test_set_a")
                         for c in first)  # fmt: skip
    # what the verifier rejects, the next donor may still repair
    assert donors.left()
    second = donors.take()
    assert said[-1] == f"minimising the statements of state-setter {M}test_set_b"
    assert second and not donors.left()


def test_donors_whose_statements_do_not_work_are_passed_in_the_same_call(tmp_path: Path) -> None:
    setters = [M + "test_checks_only", M + "test_set_a", M + "test_set_b"]
    donors, said = _cleaners(tmp_path, setters, 'MODE["b"]')
    candidates = donors.take()
    assert [s.rsplit("::", 1)[1] for s in said] == ["test_checks_only", "test_set_a", "test_set_b"]
    # an unproven donor's statements stay candidates: only a real run can tell
    assert any(c.description.startswith(f"the statement of state-setter {M}test_set_b")
               for c in candidates)  # fmt: skip
    assert not donors.left()


SERVED = {
    "pytest.ini": "[pytest]\n",
    "store.py": "DATA = {}\n",
    "tests/test_served.py": """
        import store

        SERVER = []


        def setup_module(module):
            SERVER.append("up")


        def fetch(key):
            assert SERVER, "the module's server is not up"
            store.DATA[key] = 1


        def test_fetch_a():
            fetch("x")


        def test_fetch_b():
            fetch("x")


        def test_reads():
            assert store.DATA.get("x") == 1
        """,
}
S = "tests/test_served.py::"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_files(tmp_path_factory.mktemp("served") / "proj", SERVED)


def test_a_setters_statements_are_screened_after_the_tests_set_up(engine: Engine) -> None:
    """The setter's statement needs what the module's set-up starts: screened before the
    set-up, it would fail, and every setter would be minimised in vain."""
    said: list[str] = []
    finding = ODFinding(S + "test_reads", "brittle", state_setters=[S + "test_fetch_a",
                                                                     S + "test_fetch_b"])  # fmt: skip
    repairer = Repairer(engine.config, engine, strategy="cleaner", progress=said.append)
    result = repairer.repair(finding)
    assert result.fix is not None, result.notes
    assert [s for s in said if s.startswith("minimising")] == [
        f"minimising the statements of state-setter {S}test_fetch_a"
    ]
    assert result.fix.description.startswith(f"the statement of state-setter {S}test_fetch_a")
