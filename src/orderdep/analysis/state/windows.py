"""Narrowing call tracing to the code that matters, through pytest's own hooks.

A test's window (``before_test`` to ``after_test``) is mostly pytest's machinery:
reporting, capture and logging between the phases. A small plugin turns the recorder's
call hook on only inside fixture functions that are not pytest's own, the call phase and
teardown, as the innermost wrappers; it also hands over the test's fixture values (a
session fixture returning a root is an alias of it). Probes are not given the session, so
:func:`find_pluginmanager` takes it from the loop that drives the order.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, Optional, cast

from orderdep.analysis.state.audit import ACTIVE

if TYPE_CHECKING:
    from orderdep.analysis.state.reads import ReadTracer


def _window(func: Any = None, values: Any = None) -> Iterator[None]:
    rec = cast("Optional[ReadTracer]", ACTIVE[0])  # the only recorder there is
    if rec is None or not rec.narrow:
        yield
        return
    if values:
        rec.note_values(values)
    module = getattr(func, "__module__", None) or ""
    if module.startswith(("_pytest.", "pytest")):  # builtin fixtures never touch the project
        yield
        return
    rec.trace_on()
    try:
        yield
    finally:
        rec.trace_off()


def _make_plugin() -> object:
    """A pytest plugin turning the active tracer on around fixture functions, the call
    phase and teardown (old-style hookwrappers, which every supported pytest accepts)."""
    import pytest  # only ever called inside a pytest process

    # trylast: the innermost wrappers, inside capture's and logging's
    class PytestWindows:
        @pytest.hookimpl(hookwrapper=True, trylast=True)
        def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Iterator[None]:
            yield from _window(getattr(fixturedef, "func", None))

        @pytest.hookimpl(hookwrapper=True, trylast=True)
        def pytest_runtest_call(self, item: Any) -> Iterator[None]:
            # the test's fixture values: a session fixture returning a root is an alias
            values = getattr(item, "funcargs", None) or {}
            yield from _window(values=list(values.values()))

        @pytest.hookimpl(hookwrapper=True, trylast=True)
        def pytest_runtest_teardown(self, item: Any, nextitem: Any) -> Iterator[None]:
            yield from _window()

    return PytestWindows()


PLUGIN_NAME = "orderdep-state-windows"


def narrow_to_pytest(tracer: ReadTracer, pluginmanager: Any) -> bool:
    """Register the window plugin with a pytest plugin manager; True if it is active."""
    try:
        if pluginmanager.get_plugin(PLUGIN_NAME) is None:
            pluginmanager.register(_make_plugin(), PLUGIN_NAME)
    except Exception:
        return False
    tracer.narrow = True
    return True


def find_session(depth: int = 12) -> Any:
    """The pytest session running us, from a caller's locals (None when there is none).

    Probes are not handed the session, but the loop that drives the order holds it.
    """
    frame: Optional[FrameType] = sys._getframe(1)
    for _ in range(depth):
        if frame is None:
            return None
        for value in list(frame.f_locals.values()):
            if type(value).__module__ == "_pytest.main" and type(value).__name__ == "Session":
                return value
        frame = frame.f_back
    return None


def find_pluginmanager(depth: int = 12) -> Any:
    """The plugin manager of the pytest session running us (see :func:`find_session`)."""
    session = find_session(depth + 1)
    return None if session is None else session.config.pluginmanager
