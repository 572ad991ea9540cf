"""A fixture orderdep adds has its clean-up after a ``yield``
(:mod:`orderdep.analysis.repair.write.finalizers`)."""

from __future__ import annotations

from orderdep.analysis.repair.write.finalizers import written_already, yield_style
from orderdep.analysis.repair.write.statements import parse_statements

REG = "pkg.REGISTRY"


def test_a_lambda_s_tuple_becomes_lines_after_the_yield_and_request_goes() -> None:
    got = yield_style(
        [f"saved = {REG}.copy()",
         f"request.addfinalizer(lambda saved=saved: ({REG}.clear(), {REG}.update(saved)))"],
        ["request"],
    )  # fmt: skip
    assert got == (
        [f"saved = {REG}.copy()", "yield", f"{REG}.clear()", f"{REG}.update(saved)"],
        [],
    )


def test_finalizers_run_after_the_yield_in_reverse_order_of_registration() -> None:
    got = yield_style(
        ["monkeypatch.setenv('A', '1')",
         "request.addfinalizer(mod.cache_clear)",
         "request.addfinalizer(lambda: sys.modules.pop('x', None))"],
        ["monkeypatch", "request"],
    )  # fmt: skip
    assert got == (
        ["monkeypatch.setenv('A', '1')", "yield", "sys.modules.pop('x', None)",
         "mod.cache_clear()"],
        ["monkeypatch"],
    )  # fmt: skip


def test_request_stays_when_another_statement_uses_it() -> None:
    got = yield_style(["request.node.add_marker('x')", "request.addfinalizer(reset)"], ["request"])
    assert got == (["request.node.add_marker('x')", "yield", "reset()"], ["request"])


def test_what_cannot_move_keeps_its_finalizers() -> None:
    bound_twice = [
        "saved = a.copy()",
        "request.addfinalizer(lambda saved=saved: a.update(saved))",
        "saved = b.copy()",
        "request.addfinalizer(lambda saved=saved: b.update(saved))",
    ]
    assert yield_style(bound_twice, ["request"]) is None  # each lambda kept its own value
    computed = ["request.addfinalizer(lambda path=os.getcwd(): os.chdir(path))"]
    assert yield_style(computed, ["request"]) is None
    nested = ["if flag:\n    request.addfinalizer(reset)"]
    assert yield_style(nested, ["request"]) is None  # it may not run at all
    assert yield_style(["x = 1", "return x"], []) is None
    assert yield_style(["monkeypatch.setattr(m, 'a', 1)"], ["monkeypatch"]) is None


def test_an_insertion_made_once_is_recognised_in_its_yield_style() -> None:
    statements = ["saved = a.copy()", "request.addfinalizer(lambda saved=saved: a.update(saved))"]
    body = parse_statements(["saved = a.copy()", "yield", "a.update(saved)", "other()"])
    assert written_already(body, statements, ["request"])
    assert not written_already(body[1:], statements, ["request"])
