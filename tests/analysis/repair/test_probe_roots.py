"""Roots outside module globals: wide fixtures' values and entries of sys.modules.

The debugger must name them, and every strategy must turn them into verified patches;
cleaners of the victim's own module come first, and a brittle needing a group of
state-setters gets all their statements.
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest

from orderdep.analysis.repair.candidates.guard_statements import guard_statements
from orderdep.analysis.repair.candidates.reset_calls import excess_literals
from orderdep.analysis.repair.candidates.resets import find_value_methods
from orderdep.analysis.repair.candidates.root_statements import restore_statements
from orderdep.analysis.repair.candidates.sources import rank_cleaners, read_function
from orderdep.analysis.repair.candidates.value_literals import attribute_restores, desc_literal
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.debugger import debug
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.locate.probe_roots import (
    fill_in_place,
    library_dirs,
    sysmodule_name,
    sysmodule_root,
    watched_modules,
)
from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

CART = '''
    """Shopping carts."""


    class Cart:
        def __init__(self):
            self._lines = {}

        def add(self, sku, quantity=1):
            self._lines[sku] = self._lines.get(sku, 0) + quantity

        def count(self):
            return sum(self._lines.values())

        def clear(self):
            self._lines.clear()
    '''
FILES = {
    "pytest.ini": "[pytest]\n",
    "app/__init__.py": "",
    "app/cart.py": CART,
    "app/catalog.py": """
        class Catalog:
            def __init__(self, plans):
                self._plans = list(plans)

            def names(self):
                return list(self._plans)

            def add(self, plan):
                if plan not in self._plans:
                    self._plans.append(plan)

            def discard(self, plan):
                if plan in self._plans:
                    self._plans.remove(plan)
        """,
    "app/codecs.py": """
        import importlib


        def backend():
            try:
                importlib.import_module("fast_speedups")
            except ImportError:
                return "pure"
            return "native"
        """,
    "app/migrations.py": """
        APPLIED = []


        def apply(name):
            APPLIED.append(name)
        """,
    "tests/conftest.py": """
        import pytest

        from app import catalog


        @pytest.fixture(scope="session")
        def plans():
            return catalog.Catalog(["basic", "pro"])
        """,
    "tests/test_cart.py": """
        import pytest

        from app import cart


        @pytest.fixture(scope="module")
        def basket():
            return cart.Cart()


        class TestFill:
            def test_add_items(self, basket):
                basket.add("sku-1", 2)
                assert basket.count() == 2

            def test_has_two_items(self, basket):
                assert basket.count() == 2


        class TestFresh:
            def test_starts_empty(self, basket):
                assert basket.count() == 0


        def test_empty_the_basket(basket):
            assert basket.count() >= 0
            basket.clear()
        """,
    "tests/test_other.py": "\n".join(f"def test_other_{i}():\n    x = {i}\n" for i in range(6)),
    "tests/test_plans.py": """
        def test_add_enterprise(plans):
            plans.add("enterprise")
            assert "enterprise" in plans.names()


        def test_standard_plans(plans):
            assert plans.names() == ["basic", "pro"]
        """,
    "tests/test_codecs.py": """
        import sys
        import types

        from app import codecs


        def test_uses_speedups():
            sys.modules["fast_speedups"] = types.ModuleType("fast_speedups")
            assert codecs.backend() == "native"


        def test_pure_backend():
            assert codecs.backend() == "pure"
        """,
    "tests/test_migrations.py": """
        from app import migrations


        def test_first_migration():
            migrations.apply("0001")
            assert migrations.APPLIED


        def test_second_migration():
            migrations.apply("0002")
            assert len(migrations.APPLIED) >= 1


        def test_schema_is_current():
            assert migrations.APPLIED[-2:] == ["0001", "0002"]
        """,
}
CT, PL, CO, MI = (f"tests/test_{m}.py::" for m in ("cart", "plans", "codecs", "migrations"))
OTHERS = [f"tests/test_other.py::test_other_{i}" for i in range(6)]
BASKET = "fixture:module:tests/test_cart.py::basket"
PLANS = "fixture:session:tests::plans"
SPEEDUPS = "sys.modules['fast_speedups']"


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # its shutdown costs ~1 s per pytest process; these projects do not use it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("roots") / "proj", FILES)


# -- the debugger names them ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("polluter", "victim", "root", "change"),
    [
        (CT + "TestFill::test_add_items", CT + "TestFresh::test_starts_empty", BASKET,
         "._lines: has extra key 'sku-1'"),
        (PL + "test_add_enterprise", PL + "test_standard_plans", PLANS,
         "._plans: has 1 extra item at the end: 'enterprise'"),
        (CO + "test_uses_speedups", CO + "test_pure_backend", SPEEDUPS,
         "holds fast_speedups (no file) (absent in the passing order)"),
    ],
)  # fmt: skip
def test_debugger_names_fixture_values_and_planted_modules(
    engine: Engine, polluter: str, victim: str, root: str, change: str
) -> None:
    result = debug(
        engine, victim, kind="victim", failing_order=[polluter, victim], passing_order=[victim]
    )
    assert result.polluted == [root], result.to_json()
    assert result.root(root).changes == (change,)


def test_a_brittle_needs_the_fixture_value_its_setter_left(engine: Engine) -> None:
    # the roles swap: putting the fresh value back in [setter, brittle] breaks the brittle
    setter, brittle = CT + "TestFill::test_add_items", CT + "TestFill::test_has_two_items"
    result = debug(
        engine, brittle, kind="brittle", failing_order=[brittle], passing_order=[setter, brittle]
    )
    assert result.polluted == [BASKET]
    finding = ODFinding(brittle, "brittle", state_setters=[setter])
    fix = Repairer(engine.config, engine, strategy="restore").repair(finding).fix
    assert fix is not None
    assert fix.insertions[0].statements == (
        "basket._lines.clear()",
        "basket._lines.update({'sku-1': 2})",
    )


# -- every strategy repairs them -----------------------------------------------------------
@pytest.mark.parametrize(
    ("polluter", "victim", "strategy", "test", "statements"),
    [
        (CT + "TestFill::test_add_items", CT + "TestFresh::test_starts_empty", "restore",
         CT + "TestFresh::test_starts_empty", ("basket._lines.clear()",)),
        (CT + "TestFill::test_add_items", CT + "TestFresh::test_starts_empty", "generated",
         CT + "TestFresh::test_starts_empty", ("basket.clear()",)),
        (PL + "test_add_enterprise", PL + "test_standard_plans", "restore",
         PL + "test_standard_plans", ("plans._plans[:] = ['basic', 'pro']",)),
        (PL + "test_add_enterprise", PL + "test_standard_plans", "generated",
         PL + "test_standard_plans", ("plans.discard('enterprise')",)),
        (PL + "test_add_enterprise", PL + "test_standard_plans", "polluter",
         PL + "test_add_enterprise",
         ("import copy", "saved = copy.deepcopy(vars(plans))",
          "request.addfinalizer(lambda saved=saved: (vars(plans).clear(), vars(plans).update(saved)))")),
        (CO + "test_uses_speedups", CO + "test_pure_backend", "restore",
         CO + "test_pure_backend",
         ("monkeypatch.delitem(sys.modules, 'fast_speedups', raising=False)",)),
        (CO + "test_uses_speedups", CO + "test_pure_backend", "polluter",
         CO + "test_uses_speedups",
         ("request.addfinalizer(lambda: sys.modules.pop('fast_speedups', None))",)),
    ],
)  # fmt: skip
def test_each_strategy_repairs_fixture_values_and_planted_modules(
    engine: Engine,
    polluter: str,
    victim: str,
    strategy: str,
    test: str,
    statements: tuple[str, ...],
) -> None:
    finding = ODFinding(victim, "victim", polluters=[polluter])
    result = Repairer(engine.config, engine, strategy=strategy).repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.verification.ok
    ins = result.fix.insertions[0]
    assert (ins.test, ins.statements) == (test, statements)


def test_cleaners_of_the_victims_module_are_tried_first(engine: Engine) -> None:
    # every test of another module "cleans" a module fixture (it is torn down in
    # between), and those come first in the report: more than MAX_CLEANERS of them
    victim = CT + "TestFresh::test_starts_empty"
    polluter = CT + "TestFill::test_add_items"
    finding = ODFinding(
        victim, "victim", polluters=[polluter],
        cleaners={polluter: [*OTHERS, CT + "test_empty_the_basket"]},
    )  # fmt: skip
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert result.fix.insertions[0].statements == ("basket.clear()",)
    assert "cleaner tests/test_cart.py::test_empty_the_basket" in result.fix.description


def test_rank_cleaners(project: Path) -> None:
    victim = read_function(project, CT + "TestFresh::test_starts_empty")
    plans = RootInfo(PLANS, "fixture", ValueView(True), ValueView(True), fixture="plans")
    ranked = rank_cleaners(
        project,
        [*OTHERS[:2], PL + "test_add_enterprise", CO + "test_pure_backend", CT + "test_empty_the_basket"],
        victim,
        [plans],
    )  # fmt: skip
    assert (
        ranked
        == [
            CT + "test_empty_the_basket",  # the victim's module
            PL + "test_add_enterprise",  # uses the polluted fixture
            *OTHERS[:2],
            CO + "test_pure_backend",
        ]
    )
    jobs = RootInfo("app.codecs.X", "global", ValueView(True), ValueView(True), module="app.codecs")
    assert rank_cleaners(project, [*OTHERS[:1], CO + "test_pure_backend"], victim, [jobs]) == [
        CO + "test_pure_backend",  # names the root's module
        OTHERS[0],
    ]


def test_a_brittle_gets_the_statements_of_its_setter_group(engine: Engine) -> None:
    brittle = MI + "test_schema_is_current"
    group = [MI + "test_first_migration", MI + "test_second_migration"]
    finding = ODFinding(brittle, "brittle", state_setter_groups=[group])
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    # after a guard that puts the root they change back when the test ends
    assert result.fix.insertions[0].statements[-2:] == (
        'migrations.apply("0001")',
        'migrations.apply("0002")',
    )
    assert "the 2 statements of state-setter group" in result.fix.description  # not the asserts
    assert result.fix.description.endswith(", undone when it ends")


# -- the pieces -----------------------------------------------------------------------------
def test_sys_modules_roots_name_entries_that_are_not_library_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert sysmodule_root("a.b") == "sys.modules['a.b']"
    assert sysmodule_name(sysmodule_root("a.b")) == "a.b"
    assert sysmodule_name("sys.path") is None
    planted = types.ModuleType("od_planted_speedups")
    monkeypatch.setitem(sys.modules, "od_planted_speedups", planted)
    watched = watched_modules(library_dirs())
    assert watched["od_planted_speedups"] is planted
    assert "json" not in watched and "sys" not in watched and "pytest" not in watched


def test_fill_in_place_keeps_identity() -> None:
    class Box:
        def __init__(self) -> None:
            self.items = [1]

    box, fresh = Box(), Box()
    box.items.append(2)
    box.extra = True  # type: ignore[attr-defined]
    assert fill_in_place(box, fresh) and vars(box) == {"items": [1]}
    d = {"a": 1}
    assert fill_in_place(d, {}) and d == {}
    assert not fill_in_place((1,), (2,))


def fixture_root(failing: object, passing: object, **kw: str) -> RootInfo:
    return RootInfo(
        PLANS, "fixture", ValueView(True, failing), ValueView(True, passing), fixture="plans", **kw
    )


def test_desc_literal_and_attribute_restores() -> None:
    assert desc_literal(["dict", "dict", [["'a'", ["seq", "list", [["atom", "int", "1"]]]]]]) == (
        "{'a': [1]}"
    )
    assert desc_literal(["set", "set", []]) == "set()"
    assert desc_literal(["seq", "tuple", [["atom", "str", "'x'"]]]) == "('x',)"
    assert desc_literal(["obj", "Job", []]) is None
    assert desc_literal(["atom", "Job", "<Job object at 0x1>"]) is None
    f = ["obj", "Cat", [["n", ["atom", "int", "2"]], ["plans", ["seq", "list", [["atom", "str", "'a'"], ["atom", "str", "'b'"]]]]]]  # fmt: skip
    p = ["obj", "Cat", [["n", ["atom", "int", "1"]], ["plans", ["seq", "list", [["atom", "str", "'a'"]]]]]]  # fmt: skip
    root = fixture_root(f, p)
    assert attribute_restores(root, "cat") == ["cat.n = 1", "cat.plans[:] = ['a']"]
    assert restore_statements(root, ModuleNames(), None) == [
        (["plans.n = 1", "plans.plans[:] = ['a']"], ["plans"])
    ]
    assert excess_literals(root) == ["b"]
    opaque = fixture_root(["obj", "Cat", [["x", ["atom", "Lock", "<Lock>"]]]], ["obj", "Cat", []])
    assert attribute_restores(opaque, "cat") == ["del cat.x"]
    [(guard, fixtures)] = guard_statements(root, ModuleNames(), None)
    assert fixtures == ["request", "plans"] and guard[1] == "saved = copy.deepcopy(vars(plans))"


def test_reset_methods_of_a_fixture_values_class() -> None:
    methods = find_value_methods(textwrap.dedent(CART), "Cart", "app.cart")
    assert [m.path for m in methods] == [("clear",)]
    assert find_value_methods(textwrap.dedent(CART), "Missing", "app.cart") == []
