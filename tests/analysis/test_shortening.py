"""Shortening a suspect's order: alone, hints from other orders, group testing."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest
from tests.analysis.counting import CountingModel

from orderdep.analysis import confirm as confirm_module
from orderdep.analysis.confirm import OrderRunner, RunLog, confirm
from orderdep.analysis.shortening import Shortening, narrowed, stopped_note
from orderdep.core.odmodel import ODSpec
from orderdep.core.prefix_search import GROUP_CAP
from orderdep.core.suite import Suite
from orderdep.synth.model import ModelExecutor


def walk(shortening: Shortening, shows: Callable[[list[str]], bool]) -> list[list[str]]:
    """Drive a shortening by hand: ``shows`` says whether an order shows the outcome."""
    asked = []
    while (order := shortening.next_order()) is not None:
        asked.append(order)
        shortening.saw(shows(order))
    return asked


def test_shortening_tries_alone_then_bisects_the_prefix() -> None:
    order = [f"t{i}" for i in range(20)] + ["v", "z"]
    s = Shortening("v", True, order)
    asked = walk(s, lambda o: "t13" in o)
    assert s.found == ["t13", "v"]
    assert asked[0] == ["v"] and asked[1] == [*order[10:20], "v"]  # alone, the later half
    assert len(asked) <= 2 + 2 * math.ceil(math.log2(20))
    assert sum(len(o) for o in asked) < 2 * len(order)  # n/2 + n/4 + ... (twice at most)
    s = Shortening("v", True, order)
    assert walk(s, lambda o: o == ["v"]) == [["v"]] and s.found == ["v"]
    s = Shortening("v", False, ["v", "z"])
    assert walk(s, lambda o: False) == [["v"], ["v"]] and s.found == ["v", "z"]


def test_shortening_keeps_a_group_in_its_order() -> None:
    order = [f"t{i}" for i in range(30)] + ["v"]
    s = Shortening("v", True, order)
    walk(s, lambda o: "t3" in o and "t21" in o and o.index("t3") < o.index("t21"))
    assert s.found == ["t3", "t21", "v"]


def test_shortening_keeps_the_recorded_order_when_answers_contradict() -> None:
    order = [f"t{i}" for i in range(8)] + ["v"]
    s = Shortening("v", True, order)
    walk(s, lambda o: False)  # the recorded order showed it once, nothing else ever does
    assert s.found == order


def test_a_hint_that_shows_the_outcome_is_searched_instead_of_the_prefix() -> None:
    order = [f"t{i}" for i in range(40)] + ["v"]
    hint = ["t3", "t13", "t27", "t31"]
    s = Shortening("v", True, order, [hint])
    asked = walk(s, lambda o: "t13" in o)
    assert asked[:2] == [["v"], [*hint, "v"]]
    assert s.found == ["t13", "v"]
    assert all(set(o) <= {*hint, "v"} for o in asked)  # never the 40-test prefix


def test_hints_that_do_not_show_it_fall_back_to_the_whole_prefix() -> None:
    order = [f"t{i}" for i in range(20)] + ["v"]
    s = Shortening("v", True, order, [["t1"], ["t1", "t2"]])
    asked = walk(s, lambda o: "t13" in o)
    assert asked[:3] == [["v"], ["t1", "v"], ["t1", "t2", "v"]]
    assert asked[3] == [*order[10:20], "v"]
    assert s.found == ["t13", "v"]


def test_narrowed_keeps_what_every_failing_order_ran_before_and_no_passing_one_did() -> None:
    fail_1 = ["a", "p", "b", "c", "v", "d"]
    fail_2 = ["c", "p", "a", "v", "b"]
    pass_1 = ["a", "v", "p"]
    pass_2 = ["p", "c", "v"]  # a cleaner c after p: p passes here
    assert narrowed("v", fail_1, [fail_1, fail_2], [pass_1]) == [["p", "c"], ["a", "p", "c"]]
    # the passing order with the cleaner takes p out of the strict hint, not the loose one
    assert narrowed("v", fail_1, [fail_1, fail_2], [pass_1, pass_2]) == [[], ["a", "p", "c"]]
    assert narrowed("v", ["p", "v"], [["p", "v"]], []) == []  # nothing to narrow


def test_hints_cut_the_cost_of_confirming_victims_of_a_large_suite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Victims found by random orders of 400 tests: the other orders narrow each one's
    candidates, so confirmation runs far fewer tests for the same findings."""
    rng = random.Random(3)
    ids = [f"tests/test_m{i // 10}.py::test_{i}" for i in range(400)]
    picks = rng.sample(ids, 16)
    specs = [ODSpec(picks[2 * j], "victim", polluters=[picks[2 * j + 1]]) for j in range(8)]

    def executions() -> tuple[int, list[str]]:
        ex = ModelExecutor(Suite.from_ids(ids), specs, seed=0)
        runner = OrderRunner(ex, RunLog())
        search = runner.run([rng_order(ids, seed) for seed in range(6)])
        before = runner.executions
        verdicts = confirm(runner, search, confirm_runs=1)
        return runner.executions - before, sorted(f.test for f in verdicts.od)

    with_hints, found = executions()
    monkeypatch.setattr(confirm_module, "narrowed", lambda *args: [])
    without, found_without = executions()
    assert found == found_without and found  # the same answers
    assert with_hints * 2 < without


def rng_order(ids: list[str], seed: int) -> list[str]:
    order = list(ids)
    random.Random(seed).shuffle(order)
    return order


def test_an_outcome_needing_more_tests_than_the_cap_stops_with_an_order_that_shows_it() -> None:
    order = [f"t{i:02d}" for i in range(40)] + ["v"]

    def fails(o: list[str]) -> bool:  # v fails after any 6 of the other tests
        return len(o) - 1 >= 6

    s = Shortening("v", True, order)
    asked = walk(s, fails)
    assert s.stopped and s.found is not None and fails(s.found)
    assert len(s.found) - 1 > GROUP_CAP and s.found[-1] == "v"
    assert len(asked) <= 1 + GROUP_CAP * 3 * math.ceil(math.log2(40)) + 2
    assert f"more than {GROUP_CAP} of the tests before v" in stopped_note(s)
    # a group of up to the cap is shortened whole, and not marked
    s = Shortening("v", True, order)
    walk(s, lambda o: {"t03", "t20", "t31"} <= set(o))
    assert not s.stopped and s.found == ["t03", "t20", "t31", "v"]


def test_confirmation_marks_a_finding_whose_order_stayed_long() -> None:
    ids = [f"t{i:02d}" for i in range(30)] + ["v"]

    model = CountingModel(ids, "v", needed=6)
    runner = OrderRunner(model, RunLog(None), 1)
    verdicts = confirm(runner, [model.run(ids), model.run(["v", *ids[:-1]])], confirm_runs=1)
    (finding,) = verdicts.od
    assert len(finding.failing_order) - 1 > GROUP_CAP
    (note,) = finding.needs_many_tests
    assert note.startswith("the failing order needs more than")


def test_the_tests_of_the_suspects_own_module_are_tried_before_the_whole_prefix() -> None:
    """One random order that failed the victim, none to narrow it: the polluter in the
    victim's module is found in orders of that module's tests only."""
    victim = "tests/test_ctx.py::TestCtx::test_clear"
    polluter = "tests/test_ctx.py::TestCtx::test_fields_to_clear"
    others = [f"tests/test_m{i % 7}.py::test_{i}" for i in range(60)]
    mine = [f"tests/test_ctx.py::TestCtx::test_{i}" for i in range(3)]
    prefix = [*others[:30], mine[0], polluter, *others[30:], *mine[1:]]
    recorded = [*prefix, victim, "tests/test_z.py::test_after"]
    hints = narrowed(victim, recorded, [recorded], [])
    assert hints == [[mine[0], polluter, *mine[1:]]]
    s = Shortening(victim, True, recorded, hints)
    asked = walk(s, lambda o: polluter in o)
    assert s.found == [polluter, victim]
    assert all(t.startswith("tests/test_ctx.py::") for o in asked for t in o)


def test_module_hints_come_after_smaller_ones_and_never_repeat_the_prefix() -> None:
    v = "t/test_a.py::v"
    p, q = "t/test_a.py::p", "t/test_a.py::q"
    x, y = "t/test_b.py::x", "t/test_b.py::y"
    failing = [x, p, y, q, v]
    passing = [x, q, v, y, p]  # p after v: out of the strict hint
    assert narrowed(v, failing, [failing], [passing]) == [[p, y], [p, q]]
    assert narrowed(v, [p, q, v], [[p, q, v]], []) == []  # the module is the whole prefix
