"""A brittle that needs what a fixture of its state-setter sets up, state the debugger
cannot see (a codec error handler registered in the interpreter): it is fixed by
requesting that fixture too."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import repaired_brittle

from orderdep.analysis.repair.candidates.setter_fixtures import setter_fixture_candidates
from orderdep.core.report import ODFinding

CONFTEST = """
    import codecs

    import pytest


    @pytest.fixture(scope="session")
    def lenient():
        codecs.register_error("lenient", lambda exc: ("?", exc.end))
        yield "lenient"
"""
TESTS = """
    def test_encode(lenient):
        assert "é".encode("ascii", lenient) == b"?"


    def test_decode():
        assert b"\\xff".decode("ascii", "lenient") == "?"
"""
M = "tests/test_codec.py::"
BRITTLE, SETTER = M + "test_decode", M + "test_encode"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def test_the_brittle_requests_the_fixture_its_state_setter_uses(tmp_path: Path) -> None:
    root = _write(tmp_path / "p", {"tests/conftest.py": CONFTEST, "tests/test_codec.py": TESTS})
    new = repaired_brittle(root, BRITTLE, SETTER, tmp_path / "plain")
    assert list(new) == ["tests/test_codec.py"]
    assert "def test_decode(lenient):" in new["tests/test_codec.py"]


def test_no_fixture_is_offered_that_the_brittle_would_see_as_another(tmp_path: Path) -> None:
    """A fixture of the state-setter's own module of the same name as one the brittle's
    module defines differently is not offered; nor one the brittle already requests."""
    root = _write(
        tmp_path / "p",
        {
            "tests/conftest.py": CONFTEST,
            "tests/a/test_setter.py": "def test_encode(lenient):\n    pass\n",
            "tests/b/test_brittle.py": (
                "import pytest\n\n\n@pytest.fixture\ndef lenient():\n    return 'strict'\n\n\n"
                "def test_decode():\n    pass\n\n\ndef test_asks(lenient):\n    pass\n"
            ),
        },
    )
    setter = "tests/a/test_setter.py::test_encode"
    shadowed = ODFinding("tests/b/test_brittle.py::test_decode", "brittle", state_setters=[setter])
    assert setter_fixture_candidates(root, shadowed) == []
    asks = ODFinding("tests/b/test_brittle.py::test_asks", "brittle", state_setters=[setter])
    assert setter_fixture_candidates(root, asks) == []
