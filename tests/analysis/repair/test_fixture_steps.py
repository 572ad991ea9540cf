"""A brittle that repeats a fixture's set-up but leaves out its last step (the call that
loads what the set-up wrote): it is fixed by that step, right where the fixture has it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.analysis.repair.corpus_helpers import repaired
from tests.analysis.repair.test_setter_fixtures import _write

from orderdep.analysis.repair.candidates.fixture_steps import missing_step_candidates
from orderdep.core.report import ODFinding

APP = {
    "app/__init__.py": "",
    "app/config.py": """
        class Config:
            data_dir = "no-data"


        config = Config()
    """,
    "app/store.py": """
        import json
        from pathlib import Path

        from app.config import config

        ITEMS = {}


        def load():
            for path in sorted(Path(config.data_dir).glob("*.json")):
                ITEMS.update(json.loads(path.read_text()))
    """,
}
TESTS = """
    import json

    import pytest

    from app import store
    from app.config import config


    class TestStore:
        @pytest.fixture
        def data_dir(self, tmp_path, monkeypatch):
            folder = tmp_path / "data"
            folder.mkdir()
            (folder / "fruit.json").write_text(json.dumps({"apple": [1, 2]}))
            monkeypatch.setattr(config, "data_dir", str(folder))
            store.load()
            return folder

        def test_lookup(self, data_dir):
            assert store.ITEMS["apple"] == [1, 2]

        def test_lookup_by_copy(self, tmp_path, monkeypatch):
            folder = tmp_path / "data"
            folder.mkdir()
            (folder / "fruit.json").write_text(json.dumps({"apple": [1, 2]}))
            monkeypatch.setattr(config, "data_dir", str(folder))

            assert len(store.ITEMS.get("apple", [])) == 2
"""
M = "tests/test_store.py::TestStore::"
BRITTLE, SETTER = M + "test_lookup_by_copy", M + "test_lookup"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def test_the_step_the_copy_leaves_out_goes_after_the_statement_it_follows(
    tmp_path: Path,
) -> None:
    """Only fixture candidates: restoring ``ITEMS['apple']`` through monkeypatch is
    verified too, and ranks first, as a change undone when the test ends."""
    root = _write(tmp_path / "p", {**APP, "tests/__init__.py": "", "tests/test_store.py": TESTS})
    finding = ODFinding(BRITTLE, "brittle", state_setters=[SETTER])
    orders = [[BRITTLE], [SETTER, BRITTLE], [BRITTLE, SETTER]]
    new = repaired(root, finding, orders, tmp_path / "plain", strategy="fixture")
    lines = [ln.strip() for ln in new["tests/test_store.py"].splitlines()]
    copy = lines.index("def test_lookup_by_copy(self, tmp_path, monkeypatch):")
    body = [ln for ln in lines[copy + 1 :] if ln and not ln.startswith("#")]
    assert body[3:6] == [
        'monkeypatch.setattr(config, "data_dir", str(folder))',
        "store.load()",
        'assert len(store.ITEMS.get("apple", [])) == 2',
    ]
    assert lines.count("store.load()") == 2  # the fixture's and the test's; nothing else


def _candidates(root: Path, tests: str, brittle: str = BRITTLE) -> list[list[str]]:
    _write(root, {**APP, "tests/test_store.py": tests})
    finding = ODFinding(brittle, "brittle", state_setters=[SETTER])
    return [
        [st for ins in c.insertions for st in ins.statements]
        for c in missing_step_candidates(root, finding)
    ]


def test_a_copy_of_one_statement_is_no_copy_of_the_set_up(tmp_path: Path) -> None:
    one = TESTS.replace(
        '            (folder / "fruit.json").write_text(json.dumps({"apple": [1, 2]}))\n'
        '            monkeypatch.setattr(config, "data_dir", str(folder))\n\n',
        "",
    )
    assert one.count("write_text") == 1
    assert _candidates(tmp_path, one) == []
    assert _candidates(tmp_path / "whole", TESTS) == [["store.load()"]]


def test_a_step_reading_what_the_test_lacks_is_not_offered(tmp_path: Path) -> None:
    """The fixture's step reads its own parameter ``request``, which the test does not take."""
    lacking = TESTS.replace("store.load()", "store.load(request.node.name)").replace(
        "def data_dir(self, tmp_path, monkeypatch):",
        "def data_dir(self, tmp_path, monkeypatch, request):",
    )
    assert _candidates(tmp_path, lacking) == []


def test_the_state_setter_itself_is_a_donor_and_its_checks_are_no_step(tmp_path: Path) -> None:
    setter_body = TESTS.replace(
        "        def test_lookup(self, data_dir):\n",
        "        def test_lookup(self, tmp_path, monkeypatch):\n"
        '            folder = tmp_path / "data"\n'
        "            folder.mkdir()\n"
        '            (folder / "fruit.json").write_text(json.dumps({"apple": [1, 2]}))\n'
        '            monkeypatch.setattr(config, "data_dir", str(folder))\n'
        "            store.load()\n",
    )
    assert _candidates(tmp_path, setter_body) == [["store.load()"]]
