"""A victim whose polluters change different attributes of one singleton (corpus project
``singleton_two_polluters``): the roots of every polluter are found and restored
together, so one patch holds after each polluter."""

from __future__ import annotations

from typing import Optional

from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.locate.polluter_roots import MAX_DEBUGS, every_polluters_roots, union
from orderdep.analysis.repair.locate.root_info import DebugResult, RootInfo
from orderdep.analysis.repair.locate.value_view import ValueView
from orderdep.analysis.repair.verify.verify import Target
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_recorder.py::TestRecorder::test_record_one"
SEPARATOR = "tests/test_recorder.py::TestRecorder::test_custom_separator"
VIEWS = "tests/test_views.py::TestViews::test_index"


project = corpus_fixture("singleton_two_polluters")


def obj(**attrs: object) -> list[object]:
    return ["obj", "Recorder", [[k, ["atom", "str", v]] for k, v in attrs.items()]]


def root(failing: list[object], passing: list[object]) -> RootInfo:
    return RootInfo(
        "apidoc.recorder", "global", ValueView(True, failing, None, "Recorder"),
        ValueView(True, passing, None, "Recorder"), module="apidoc", attrs=("recorder",),
    )  # fmt: skip


FRESH = obj(entries="[]", separator="=")


def test_union_takes_the_attributes_each_order_changed() -> None:
    first = root(obj(entries="[1]", separator="="), FRESH)
    second = root(obj(entries="[]", separator="-"), FRESH)
    both = union(first, second)
    assert both.failing.desc == obj(entries="[1]", separator="-")
    assert len(both.changes) == 2, both.changes
    # a value that is not one object changed in place keeps the first root
    other = RootInfo("apidoc.recorder", "global", ValueView(True, ["atom", "int", 1]),
                     ValueView(True, ["atom", "int", 0]))  # fmt: skip
    assert union(other, second) is other


def result(order: list[str], failing: list[object]) -> DebugResult:
    r = root(failing, FRESH)
    return DebugResult(VICTIM, "victim", order, [VICTIM], differing=[r], polluted=[r.name])


def restores(r: RootInfo) -> list[tuple[list[str], list[str]]]:
    return [([f"restore {r.failing.desc}"], ["monkeypatch"])]


def test_only_the_orders_the_first_roots_do_not_explain_are_debugged() -> None:
    first = result([SEPARATOR, VICTIM], obj(entries="[]", separator="-"))
    orders = [[SEPARATOR, VICTIM], [VIEWS, VICTIM], ["tests/test_views.py::x", VICTIM]]
    target = Target(VICTIM, orders, [[VICTIM]])
    screened: list[tuple[list[str], str]] = []
    debugged: list[list[str]] = []

    def screen(t: Target, code: str, ns: Optional[str], fixtures: object) -> bool:
        screened.append((t.failing_orders[0], code))
        return "'[1]'" in code  # restoring the entries too explains every order

    def debug_order(order: list[str]) -> DebugResult:
        debugged.append(order)
        return result(order, obj(entries="[1]", separator="="))

    notes: list[str] = []
    out = every_polluters_roots(first, target, screen, debug_order, restores, "m", notes)
    assert debugged == [[VIEWS, VICTIM]]
    assert [o for o, _ in screened] == [[VIEWS, VICTIM], ["tests/test_views.py::x", VICTIM]]
    assert out.polluted == [] and out.together == ["apidoc.recorder"]
    assert out.culprits[0].failing.desc == obj(entries="[1]", separator="-")
    assert "restored together" in out.notes[-1]


def test_debugging_stops_after_the_limit_and_says_so() -> None:
    first = result([SEPARATOR, VICTIM], obj(entries="[]", separator="-"))
    orders = [[f"tests/test_views.py::t{i}", VICTIM] for i in range(MAX_DEBUGS + 2)]
    target = Target(VICTIM, [[SEPARATOR, VICTIM], *orders], [[VICTIM]])
    calls: list[list[str]] = []

    def debug_order(order: list[str]) -> DebugResult:
        calls.append(order)
        return result(order, obj(entries=order[0], separator="="))

    notes: list[str] = []
    every_polluters_roots(first, target, lambda *a: False, debug_order, restores, "m", notes)
    assert len(calls) == MAX_DEBUGS
    assert any("were not debugged" in n or "was not debugged" in n for n in notes), notes


def test_a_brittle_or_a_single_order_is_left_alone() -> None:
    first = result([SEPARATOR, VICTIM], obj(entries="[]", separator="-"))

    def never(*args: object) -> bool:
        raise AssertionError("nothing to screen or debug")

    alone = Target(VICTIM, [[SEPARATOR, VICTIM]], [[VICTIM]])
    assert every_polluters_roots(first, alone, never, never, restores, "m", []) is first  # type: ignore[arg-type]
    brittle = DebugResult(VICTIM, "brittle", [VICTIM], [SEPARATOR, VICTIM], polluted=["x"])
    two = Target(VICTIM, [[VICTIM], [VIEWS, VICTIM]], [[SEPARATOR, VICTIM]])
    assert every_polluters_roots(brittle, two, never, never, restores, "m", []) is brittle  # type: ignore[arg-type]


def test_one_patch_restores_what_each_polluter_changed(engine: Engine) -> None:
    finding = ODFinding(VICTIM, "victim", polluters=[SEPARATOR, VIEWS])
    fix = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert fix.fix is not None, fix.notes
    code = "\n".join(i for ins in fix.fix.insertions for i in ins.statements)
    assert "'separator'" in code and "'entries'" in code, code
    # verified in both polluters' failing orders
    assert [SEPARATOR, VICTIM] in fix.target.failing_orders  # type: ignore[union-attr]
    assert [VIEWS, VICTIM] in fix.target.failing_orders  # type: ignore[union-attr]
