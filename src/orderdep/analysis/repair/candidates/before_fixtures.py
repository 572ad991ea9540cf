"""A brittle that errors in a fixture's set-up: its set-up goes before the fixtures.

When the state a brittle needs is read by a fixture it requests (``proc`` builds an
object that looks up a logging handler the state-setter installs), statements at the
start of the test body come too late: the test errors before its body runs. The same
statements in an autouse fixture of the test's module (a fixture method of its pytest
class) run first, since pytest sets up autouse fixtures before the others of their
scope. The fixture is shared: every brittle of the module that needs the same set-up
gets the same block once.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from orderdep.analysis.repair.candidates.candidates import Candidate, short_name
from orderdep.analysis.repair.write.patches import Insertion, function_path

SETUP_FIXTURE = "_set_up_before_fixtures"


def _early(ins: Insertion, setters: Sequence[str]) -> Insertion | None:
    """``ins`` (statements at the start of a test) in an autouse fixture of its module or
    pytest class; None where that cannot hold them."""
    if ins.edit != "insert" or ins.method is not None or "request" in ins.fixtures:
        return None  # a test's own request would be the fixture's there
    if ins.after is not None:
        return None  # a step after the test's own statements needs them
    path, classes, _ = function_path(ins.test)
    if not classes and any(re.search(r"\bself\b", st) for st in ins.statements):
        return None
    where = "::".join([path, *classes, SETUP_FIXTURE])
    what = "class" if classes else "module"
    partner = f" (as {short_name(setters[0])} does)" if setters else ""
    comment = (
        f"Set up before each test of this {what} and its fixtures the state its tests "
        f"need{partner}."
    )
    return dataclasses.replace(ins, test=where, comment=comment, edit="autouse")


def before_fixtures(candidates: Sequence[Candidate], setters: Sequence[str]) -> list[Candidate]:
    """The candidates that insert into the test itself, moved into an autouse fixture so
    they run before the test's fixtures (see the module doc)."""
    out: list[Candidate] = []
    for cand in candidates:
        moved = [_early(i, setters) for i in cand.insertions]
        if not moved or any(m is None for m in moved):
            continue
        out.append(
            dataclasses.replace(
                cand,
                description=f"{cand.description} (before the test's fixtures)",
                insertions=[m for m in moved if m is not None],
            )
        )
    return out


__all__ = ["SETUP_FIXTURE", "before_fixtures"]
