"""A function's mutable default arguments as state: seen by the fingerprint, captured and
put back by the root values, described by the debug probe."""

from __future__ import annotations

import types

import pytest
from tests.analysis.state.state_helpers import module_from

from orderdep.analysis.repair.locate.probe_values import describe
from orderdep.analysis.state.defaults import mutable_defaults
from orderdep.analysis.state.fingerprint import fingerprint
from orderdep.analysis.state.values import get, restore


def _module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    source = (
        "class Client:\n"
        "    def request(self, path, headers={}, *, seen=[]):\n"
        "        return headers\n\n"
        "def plain(x, y=1):\n    return x\n"
    )
    return module_from("shop_api", source, monkeypatch)


def test_only_defaults_that_change_in_place_count(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module(monkeypatch)
    request = module.Client.request
    assert mutable_defaults(request) == (({},), {"seen": []})
    assert mutable_defaults(module.plain) is None
    assert mutable_defaults(len) is None and mutable_defaults({}) is None


def test_a_default_changed_in_place_changes_the_fingerprint_and_description(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = _module(monkeypatch)
    request = module.Client.request
    before, said = fingerprint(request), describe(request)
    assert fingerprint(module.plain) == fingerprint(module.plain)
    request.__defaults__[0]["Authorization"] = "Bearer T"
    assert fingerprint(request) != before
    assert said == ["ref", "function", "shop_api.Client.request with defaults ({},) and "
                    "keyword defaults {'seen': []}"]  # fmt: skip
    assert "'Authorization': 'Bearer T'" in describe(request)[2]


def test_the_captured_defaults_are_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module(monkeypatch)
    request = module.Client.request
    captured = get("shop_api.Client.request")
    request.__defaults__[0]["Authorization"] = "Bearer T"
    request.__kwdefaults__["seen"].append(1)
    restore("shop_api.Client.request", captured)
    assert module.Client.request is request  # the same function, its defaults as before
    assert request.__defaults__ == ({},) and request.__kwdefaults__ == {"seen": []}


def test_a_dunder_method_with_a_mutable_default_counts_as_a_method() -> None:
    from orderdep.analysis.state.namespaces import PLAIN, SKIP, classify

    class Stock:
        def __init__(self, params=[]):  # type: ignore[no-untyped-def]  # noqa: B006
            self.params = params

        def __repr__(self) -> str:
            return "Stock"

    module = Stock.__module__
    # with the class's own functions as roots (the debugger's probe), as `request` is
    assert classify("__init__", Stock.__init__, module, Stock, functions=True) == PLAIN
    assert classify("__repr__", Stock.__repr__, module, Stock, functions=True) == SKIP
    assert classify("__init__", Stock.__init__, module, Stock) == SKIP
