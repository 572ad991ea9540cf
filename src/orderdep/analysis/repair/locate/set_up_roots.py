"""Roots a set-up makes, compared where the OD test reads them.

A class attribute that ``setup_class`` (``setUpClass``, a class-scoped fixture through
``request.cls``) binds is absent right before the OD test when it runs alone, and
present after its polluter, a test of the same class that ran the set-up first. Its
presence is not what the test depends on: the class set-up makes it in both orders,
and what differs is its value once the test's set-ups ran (an attribute the polluter
set on the object the set-up made). Such roots, present before the test in one order
only, are captured again first thing in the OD test's call phase in both orders, and
where both have them there, they are compared as they are then. A patch reads them at
that point too: its statements run in the test's body, or in the polluter's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

from orderdep.analysis.repair.locate.root_info import RootInfo
from orderdep.core.outcomes import OrderResult, Outcome

#: The most roots captured again after the set-ups (the first ones, by name).
MAX_LATE = 20
#: The kinds a set-up binds on a class or a module.
LATE_KINDS = ("global", "classattr")

Capture = Optional[dict[str, Any]]
Run = Callable[[Sequence[str], dict[str, Any]], tuple[Outcome, OrderResult]]
Differs = Callable[[Capture, Capture, bool], bool]


def one_sided(failing: dict[str, Any], passing: dict[str, Any]) -> list[str]:
    """The module and class attributes present before the test in one order only."""

    def present(capture: Capture) -> bool:
        return bool(capture and capture.get("present"))

    out = [
        name
        for name in sorted(set(failing) | set(passing))
        if str((failing.get(name) or passing.get(name) or {}).get("kind")) in LATE_KINDS
        and present(failing.get(name)) != present(passing.get(name))
    ]
    return out[:MAX_LATE]


def after_set_up(
    run: Run,
    orders: tuple[Sequence[str], Sequence[str]],
    names: Sequence[str],
    ensure: Sequence[str],
    differs: Differs,
) -> dict[str, RootInfo]:
    """Each of ``names`` present in both orders (failing, passing) once the OD test's
    set-ups ran, and different there, as it is then."""
    options = {"mode": "capture", "ensure_modules": list(ensure), "late": list(names)}
    _, f_res = run(orders[0], options)
    _, p_res = run(orders[1], options)
    f_late: dict[str, Any] = f_res.probe.get("late_roots", {})
    p_late: dict[str, Any] = p_res.probe.get("late_roots", {})
    same_salt = f_res.probe.get("salt") == p_res.probe.get("salt")
    out: dict[str, RootInfo] = {}
    for name in names:
        f, p = f_late.get(name), p_late.get(name)
        if not (f and p and f.get("present") and p.get("present")):
            continue
        if differs(f, p, same_salt):
            out[name] = RootInfo.from_captures(name, f, p)
    return out
