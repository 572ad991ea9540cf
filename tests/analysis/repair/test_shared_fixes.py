"""One patch per polluted state: a fix verified for one victim is tried first for the
other victims of its polluter, a block pasted into several tests of one TestCase goes
once into its setUp, and a state many polluters write gets one autouse fixture."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.analysis.repair.conftest import EngineFor
from tests.analysis.repair.corpus_helpers import CORPUS, copy_project, fix_and_apply, plain_outcomes

from orderdep.analysis.repair.candidates.candidates import Candidate, place_count, root_cause_rank
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import Fix
from orderdep.analysis.repair.verify.patchset import distinct
from orderdep.analysis.repair.verify.sharing import (
    REQUESTED_FIXTURE,
    SHARED_FIXTURE,
    for_victim,
    hoist_blocks,
    shared_fixes,
)
from orderdep.analysis.repair.verify.verify import Verification
from orderdep.analysis.repair.write.patches import Insertion
from orderdep.core.report import ODFinding, Report, save_report
from orderdep.engine.config import EngineConfig
from orderdep.engine.runner import Engine
from orderdep.shells.cli import main

CLIENT = "tests/test_client.py::TestErrors::"
BLOCK_VICTIMS = [CLIENT + f"test_{n}" for n in ("bad_request", "denied", "not_found")]
LIST_BODY = CLIENT + "test_validation_list_body"
CLEANERS = {LIST_BODY: [CLIENT + "test_server_error"]}


def _fix(test: str, strategy: str, edit: str = "insert", where: str = "") -> Fix:
    ins = Insertion(where or test, ("x = 1",), edit=edit)
    return Fix(test, strategy, "d", [ins], {}, Verification(True))


def test_root_cause_fixes_of_victims_sharing_a_polluter_are_offered_first() -> None:
    a, b, c = (ODFinding(f"t.py::v{i}", "victim", polluters=p) for i, p in
               enumerate((["t.py::p1"], ["t.py::p1", "t.py::p2"], ["t.py::p3"])))  # fmt: skip
    polluter_fix = _fix(a.test, "polluter", where="t.py::p1")
    victim_side = _fix(b.test, "cleaner")
    conftest = _fix(b.test, "fixture", edit="autouse", where="conftest.py::_restore_x")
    done = [(a, polluter_fix), (b, victim_side), (b, conftest)]
    new = ODFinding("t.py::v9", "victim", polluters=["t.py::p1", "t.py::p2"])
    # the fix shared by both polluters first; a change to another victim is never offered
    assert shared_fixes(new, done) == [conftest, polluter_fix]
    # no shared polluter: the autouse fixture of a victim of its file only
    assert shared_fixes(c, done) == [conftest]
    elsewhere = ODFinding("u.py::v3", "victim", polluters=["u.py::p3"])
    assert shared_fixes(elsewhere, done) == []
    assert shared_fixes(ODFinding("t.py::b", "brittle", state_setters=["t.py::p1"]), done) == []


def test_a_shared_polluter_fix_names_every_victim_it_was_verified_for() -> None:
    polluter = "tests/test_a.py::test_sets"
    said = "Undo this test's change to app.LIMIT when it ends (test_reads needs it)."
    guard = Insertion(polluter, ("monkeypatch.setattr(app, 'LIMIT', app.LIMIT)",),
                      ("monkeypatch",), comment=said)  # fmt: skip
    first = Fix("tests/test_b.py::test_reads", "polluter", "d", [guard], {}, Verification(True))
    second = for_victim(first, first.test, "tests/test_c.py::TestC::test_counts")
    assert second.insertions[0].comment == said.replace("test_reads", "TestC.test_counts")
    assert first.insertions[0].comment == said  # the first victim's fix is left as it was
    (merged,) = distinct([*first.insertions, *second.insertions])
    assert merged.statements == guard.statements
    assert merged.comment == (
        "Undo this test's change to app.LIMIT when it ends "
        "(test_reads and TestC.test_counts need it)."
    )
    assert for_victim(first, first.test, "tests/test_b.py::test_reads[1]") is first


@pytest.mark.slow
def test_a_block_fixing_several_tests_of_a_pytest_class_goes_into_a_fixture_of_the_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_project("block_victims", tmp_path / "p")
    module = root / "tests/test_functions.py"
    head, tests = module.read_text(encoding="utf-8").split("\n\n\ndef test_server_error", 1)
    methods = textwrap.indent("def test_server_error" + tests, "    ")
    methods = methods.replace("():\n", "(self):\n")
    module.write_text(f"{head}\n\n\nclass TestFunctions:\n{methods}", encoding="utf-8")
    cls = "tests/test_functions.py::TestFunctions::"
    polluter, cleaner = cls + "test_validation_list_body", cls + "test_server_error"
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    with Engine(EngineConfig(root)) as engine:
        repairer = Repairer(engine.config, engine, strategy="cleaner")
        results = [
            repairer.repair(
                ODFinding(t, "victim", polluters=[polluter], cleaners={polluter: [cleaner]})
            )
            for t in (cls + "test_bad_request", cls + "test_denied")
        ]
        assert all(r.fix is not None for r in results), [r.notes for r in results]
        (moved,) = hoist_blocks(repairer.verifier, root, results)
    assert (moved.where, moved.place) == ("tests/test_functions.py::TestFunctions", SHARED_FIXTURE)
    (new,) = {new for r in results if r.fix for _, new in r.fix.changes.values()}
    assert (
        "class TestFunctions:\n    @pytest.fixture(autouse=True)\n"
        f"    def {SHARED_FIXTURE}(self):\n        # Clean up before each test of this class"
    ) in new, new
    assert f"\ndef {SHARED_FIXTURE}" not in new  # not a fixture of the whole module
    module.write_text(new, encoding="utf-8")
    orders = [[polluter, cls + "test_bad_request"], [polluter, cls + "test_denied"]]
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


SETTER = "tests/test_api.py::TestConnect::test_connect"


def _fix_brittles(
    root: Path, client: str, checks: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], str]:
    """A project whose ``TestApi`` tests (name -> assertion) are brittles of
    ``TestConnect.test_connect`` (``client.connect()``), fixed with ``fix --apply``:
    the brittles' ids and fix's progress lines."""
    (root / "tests").mkdir(parents=True)
    (root / "client.py").write_text(client)
    (root / "tests/__init__.py").write_text("")
    body = "".join(f"\n    def test_{n}(self):\n        {c}\n" for n, c in checks.items())
    (root / "tests/test_api.py").write_text(
        "import unittest\n\nimport client\n\n\nclass TestConnect(unittest.TestCase):\n"
        "    def test_connect(self):\n        client.connect()\n\n\n"
        f"class TestApi(unittest.TestCase):{body}",
        encoding="utf-8",
    )
    brittles = [f"tests/test_api.py::TestApi::test_{n}" for n in checks]
    findings = [ODFinding(b, "brittle", state_setters=[SETTER]) for b in brittles]
    save_report(root / ".orderdep/report.json",
                Report(str(root), [SETTER, *brittles], findings))  # fmt: skip
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["fix", str(root), "--apply"]) == 0, out.getvalue()
    return brittles, err.getvalue()


@pytest.mark.slow
def test_brittles_of_one_state_setter_take_the_first_ones_setup_and_share_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    on = "self.assertTrue(client.SESSION.get('on'))"
    client = "SESSION = {}\n\ndef connect():\n    SESSION['on'] = True\n"
    brittles, progress = _fix_brittles(root, client, dict.fromkeys(("list", "get", "put"), on),
                                       monkeypatch)  # fmt: skip
    assert f"debugging {brittles[0]}" in progress
    for later in brittles[1:]:  # the first one's set-up, moved: verified, not debugged
        assert f"debugging {later}" not in progress, progress
        assert f"the patch of {brittles[0]} for {later}" not in progress, progress
    # ... for both at once, in one patched copy
    assert f"the set-up of {brittles[0]} for 2 other brittle(s) of its state-setter at once" in (
        progress
    )
    text = (root / "tests/test_api.py").read_text(encoding="utf-8")
    setup = text.split("    def setUp(self):\n", 1)[1].split("    def test_list", 1)[0]
    setup = setup.replace("\n        # ", " ")  # the comment as one line
    assert "Set up before each test of this class the state its tests need" in setup, text
    assert "(test_" not in setup, text  # one line: the tests' names did not fit on it
    assert text.count("client.SESSION = {'on': True}") == 1, text  # once, in setUp
    assert "self.addCleanup(setattr, client, 'SESSION', client.SESSION)" in setup, text
    for outcome in plain_outcomes(root, [[b] for b in brittles], tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


@pytest.mark.slow
def test_a_brittle_the_shared_set_up_does_not_repair_is_left_out_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    client = (
        "SESSION = {}\nSTATS = {}\n\ndef connect():\n    SESSION['on'] = True\n    STATS['n'] = 1\n"
    )
    on = "self.assertTrue(client.SESSION.get('on'))"
    checks = {
        "list": on,
        "get": on,
        "count": "self.assertEqual(client.STATS.get('n'), 1)",  # needs other state
        "put": on,
    }
    brittles, progress = _fix_brittles(root, client, checks, monkeypatch)
    assert "for 3 other brittle(s) of its state-setter at once" in progress, progress
    assert "verifying the set-up for the 2 test(s) it may repair" in progress, progress
    count = "tests/test_api.py::TestApi::test_count"
    assert f"debugging {count}" in progress  # repaired on its own
    for later in ("get", "put"):
        assert f"debugging tests/test_api.py::TestApi::test_{later}" not in progress, progress
    for outcome in plain_outcomes(root, [[b] for b in brittles], tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


@pytest.mark.slow
def test_fix_apply_names_both_victims_of_one_polluter_guard(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("LIMIT = 10\n")
    (root / "tests/__init__.py").write_text("")
    (root / "tests/test_a.py").write_text("import app\n\ndef test_sets():\n    app.LIMIT = 3\n")
    (root / "tests/test_b.py").write_text(
        "import app\n\ndef test_reads():\n    assert app.LIMIT == 10\n"
    )
    (root / "tests/test_c.py").write_text(
        "import app\n\ndef test_counts():\n    assert len(range(app.LIMIT)) == 10\n"
    )
    polluter = "tests/test_a.py::test_sets"
    victims = ["tests/test_b.py::test_reads", "tests/test_c.py::test_counts"]
    findings = [ODFinding(v, "victim", polluters=[polluter]) for v in victims]
    save_report(root / ".orderdep/report.json",
                Report(str(root), [polluter, *victims], findings))  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["fix", str(root), "--apply", "--strategy", "polluter"]) == 0
    text = (root / "tests/test_a.py").read_text(encoding="utf-8")
    assert text.count("monkeypatch.setattr(app, 'LIMIT', app.LIMIT)") == 1, text
    # one comment line for both victims: too long with their names, it leaves them out
    assert text.count("    # Undo this test's change to app.LIMIT when it ends.\n") == 1, text
    assert "(test_counts needs it)" in out.getvalue()  # the second victim's own patch
    for order in plain_outcomes(root, [[polluter, v] for v in victims], tmp_path / "work"):
        assert set(order.values()) == {"passed"}, order


def test_a_guard_copied_into_many_polluters_ranks_after_one_fixture_and_the_victim() -> None:
    one = Candidate("polluter", "d", [Insertion("t.py::p1", ("x",))])
    many = Candidate("polluter", "d", [Insertion(f"t.py::p{i}", ("x",)) for i in range(3)])
    params = Candidate("polluter", "d", [Insertion(f"t.py::p[{i}]", ("x",)) for i in range(3)])
    autouse = Candidate("fixture", "d", [Insertion("conftest.py::_r", ("x",), edit="autouse")])
    victim = Candidate("restore", "d", [Insertion("t.py::v", ("x",))])
    assert place_count(many) == 3 and place_count(params) == 1
    ranks = [root_cause_rank(c) for c in (one, params, autouse, victim, many)]
    assert ranks == sorted(ranks) and ranks[0] < ranks[2] < ranks[3] < ranks[4]


@pytest.mark.slow
def test_a_block_fixing_several_tests_of_a_testcase_goes_once_into_its_setup(
    engine_for: EngineFor,
) -> None:
    engine = engine_for("block_victims")
    repairer = Repairer(engine.config, engine, strategy="cleaner")
    results = [
        repairer.repair(ODFinding(t, "victim", polluters=[LIST_BODY], cleaners=CLEANERS))
        for t in BLOCK_VICTIMS
    ]
    assert all(r.fix is not None for r in results), [r.notes for r in results]
    pasted = {r.fix.insertions[0].test for r in results if r.fix}
    assert pasted == set(BLOCK_VICTIMS)  # one copy in each test before sharing
    (moved,) = hoist_blocks(repairer.verifier, engine.config.project, results)
    assert moved.results == BLOCK_VICTIMS
    shared = {(i.method, i.statements) for r in results if r.fix for i in r.fix.insertions}
    assert len(shared) == 1 and next(iter(shared))[0] == "setUp"
    assert all(r.fix is not None and r.fix.verification.ok for r in results)
    (new,) = {new for r in results if r.fix for _, new in r.fix.changes.values()}
    assert new.count('PropertyMock(return_value=\'{"message": "boom"}\')') == 2  # setUp + test


FUNCTIONS = "tests/test_functions.py::"


def test_a_block_fixing_several_tests_of_a_module_goes_once_into_an_autouse_fixture(
    engine_for: EngineFor,
) -> None:
    engine = engine_for("block_victims")
    repairer = Repairer(engine.config, engine, strategy="cleaner")
    polluter, cleaner = FUNCTIONS + "test_validation_list_body", FUNCTIONS + "test_server_error"
    results = [
        repairer.repair(
            ODFinding(t, "victim", polluters=[polluter], cleaners={polluter: [cleaner]})
        )
        for t in (FUNCTIONS + "test_bad_request", FUNCTIONS + "test_denied")
    ]
    assert all(r.fix is not None for r in results), [r.notes for r in results]
    (moved,) = hoist_blocks(repairer.verifier, engine.config.project, results)
    assert (moved.where, moved.place) == ("tests/test_functions.py", SHARED_FIXTURE)
    (new,) = {new for r in results if r.fix for _, new in r.fix.changes.values()}
    assert f"@pytest.fixture(autouse=True)\ndef {SHARED_FIXTURE}():" in new
    assert new.count('Session.content = PropertyMock(return_value=\'{"message": "boom"}\')') == 2


@pytest.mark.slow
def test_fix_apply_on_victims_of_one_class_leaves_one_block_and_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, output, _ = fix_and_apply("block_victims", tmp_path, monkeypatch)
    assert "goes once into its setUp instead (3 copies become one)" in output
    assert f"goes once into an autouse fixture ({SHARED_FIXTURE}) instead" in output
    text = (root / "tests/test_client.py").read_text(encoding="utf-8")
    original = (CORPUS / "block_victims/tests/test_client.py").read_text(encoding="utf-8")
    assert text.count('\'{"message": "boom"}\'') == original.count("boom") + 1
    assert "    def setUp(self):" in text
    orders = [[LIST_BODY, v] for v in BLOCK_VICTIMS]
    orders += [[FUNCTIONS + "test_validation_list_body", FUNCTIONS + t]
               for t in ("test_bad_request", "test_denied")]  # fmt: skip
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


@pytest.mark.slow
def test_fix_apply_on_a_state_many_polluters_write_adds_one_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, output, progress = fix_and_apply("many_polluters_conftest", tmp_path, monkeypatch)
    # the four polluters' clean-up once, in an autouse fixture of their module
    tuning = (root / "tests/test_tuning.py").read_text("utf-8")
    assert tuning.count("@pytest.fixture(autouse=True)") == 1, tuning
    assert "def _undo_each_tests_changes(monkeypatch):" in tuning
    assert tuning.count('monkeypatch.setattr(schemas, "table_name", schemas.table_name)') == 1
    assert not (root / "tests/conftest.py").exists()
    # the second victim reused the first one's fixture instead of being debugged
    fixes = json.loads((root / ".orderdep/fixes.json").read_text("utf-8"))["fixes"]
    (description,) = {e["description"] for e in fixes.values()}
    assert description.endswith(
        "undo their change to schemas.table_name, schemas.table_schema (once, in an autouse "
        "fixture of tests/test_tuning.py)"
    ), output
    assert "debugging tests/test_schema.py::test_columns" not in progress
    assert "for tests/test_schema.py::test_columns" in progress
    t = "tests/test_tuning.py::"
    orders = [[t + "test_override_both", "tests/test_schema.py::test_default_description"],
              [t + "test_override_again", "tests/test_schema.py::test_columns"]]  # fmt: skip
    for outcome in plain_outcomes(root, orders, tmp_path / "work"):
        assert set(outcome.values()) == {"passed"}, outcome


STOCK = "tests/test_stock.py::"


def test_a_set_up_an_autouse_fixture_would_give_the_setter_goes_into_a_requested_fixture(
    engine_for: EngineFor,
) -> None:
    """Two brittles of one module need what ``test_load`` sets up, and ``test_load`` needs
    to find nothing: an autouse fixture of the module would fail it, so the two tests
    request one fixture holding the set-up instead of a copy each."""
    engine = engine_for("brittle_shared_setup")
    repairer = Repairer(engine.config, engine, strategy="cleaner")
    brittles = [STOCK + "test_apples", STOCK + "test_count"]
    results = [
        repairer.repair(ODFinding(t, "brittle", state_setters=[STOCK + "test_load"]))
        for t in brittles
    ]
    assert all(r.fix is not None for r in results), [r.notes for r in results]
    (moved,) = hoist_blocks(repairer.verifier, engine.config.project, results)
    assert (moved.where, moved.place, moved.requested) == (
        "tests/test_stock.py",
        REQUESTED_FIXTURE,
        True,
    )
    (new,) = {new for r in results if r.fix for _, new in r.fix.changes.values()}
    assert f"@pytest.fixture\ndef {REQUESTED_FIXTURE}(" in new, new
    assert new.count("inventory.load()") == 2, new  # test_load's own, and the fixture's
    assert f"def test_apples({REQUESTED_FIXTURE}):" in new
    assert f"def test_count({REQUESTED_FIXTURE}):" in new
    assert all(r.fix is not None and r.fix.verification.ok for r in results)


def test_a_block_is_the_same_whatever_imports_an_earlier_patch_already_wrote(
    tmp_path: Path,
) -> None:
    """Two polluters of one TestCase guarded one after the other: the first insertion
    carries ``import copy``, the second, written after it, does not. They are one block,
    hoisted with its import into ``setUp``, where ``request`` becomes the TestCase's own
    clean-up."""
    from orderdep.analysis.repair.fix_result import FixResult
    from orderdep.analysis.repair.verify.verify import Target

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_yaku.py").write_text(
        "import unittest\n\nimport yaku\n\n\nclass TestYaku(unittest.TestCase):\n"
        "    def test_closed(self):\n        yaku.TOTAL.append(1)\n\n"
        "    def test_opened(self):\n        yaku.TOTAL.append(2)\n"
    )
    guard = ("saved = copy.deepcopy(yaku.TOTAL)", "request.addfinalizer(yaku.TOTAL.clear)")
    tests = [f"tests/test_yaku.py::TestYaku::test_{n}" for n in ("closed", "opened")]
    results = []
    for n, (polluter, victim) in enumerate(zip(tests, reversed(tests))):
        statements = ("import copy", *guard) if n == 0 else guard
        insertion = Insertion(polluter, statements, ("request",), comment="Undo its change.")
        fix = Fix(victim, "polluter", "guard", [insertion], {}, Verification(ok=True))
        target = Target(victim, [[polluter, victim]], [[victim]])
        results.append(FixResult(victim, "victim", fix=fix, target=target))

    class Verifies:
        def verify(
            self, changes: object, target: object, orders_only: bool = False
        ) -> Verification:
            return Verification(ok=True, orders_run=1)

    verifier: Any = Verifies()
    (moved,) = hoist_blocks(verifier, tmp_path, results)
    assert moved.place == "setUp" and moved.tests == tests
    (new,) = {new for r in results if r.fix for _, new in r.fix.changes.values()}
    assert new.count("saved = copy.deepcopy(yaku.TOTAL)") == 1 and "import copy\n" in new
    assert "self.addCleanup(yaku.TOTAL.clear)" in new and "request" not in new
