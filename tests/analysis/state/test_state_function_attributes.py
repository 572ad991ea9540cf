"""A function's own attributes as state (``post_hook.eventually = []`` after ``def
post_hook``): each is a root of its own, captured and put back like a class attribute."""

from __future__ import annotations

import types

import pytest
from tests.analysis.state.state_helpers import module_from

from orderdep.analysis.state.namespaces import carries_attributes, python_roots
from orderdep.analysis.state.values import get, restore


def _module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    source = (
        "import pytest\n\n"
        "def post_hook(command):\n"
        "    if command not in post_hook.eventually:\n"
        "        post_hook.eventually.append(command)\n\n"
        "post_hook.eventually = []\n\n"
        "def plain():\n    pass\n\n"
        "@pytest.mark.slow\n"
        "def test_marked():\n    pass\n"
    )
    return module_from("renewal", source, monkeypatch)


def test_a_function_s_own_attributes_are_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module(monkeypatch)
    roots = dict(python_roots("renewal", module))
    assert roots["renewal.post_hook.eventually"] is module.post_hook.eventually
    assert "renewal.post_hook" in roots  # the function itself, by identity, as before
    assert carries_attributes(module.post_hook, "renewal")
    assert not carries_attributes(module.plain, "renewal")
    assert not carries_attributes(module.test_marked, "renewal")  # a mark is no state
    assert not carries_attributes(module.post_hook, "elsewhere")  # imported, not its own


def test_a_function_s_attribute_is_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module(monkeypatch)
    captured = get("renewal.post_hook.eventually")
    module.post_hook("echo renewed")
    assert module.post_hook.eventually == ["echo renewed"]
    restore("renewal.post_hook.eventually", captured)
    assert module.post_hook.eventually == []
