"""Shrinking a verified transplant with real runs, where screening cannot judge it.

A cleaner's (or state-setter's) statements are minimised by delta debugging while they
are screened: run in the OD test's call phase inside the failing order (see
:mod:`orderdep.analysis.repair.candidates.cleaners`). Some code behaves differently there than in
the test's body: a logging wrapper that names its logger after the calling frame, code
that inspects the stack. Then no subset screens well, and the candidate keeps all of the
donor's statements ("the statements of cleaner X"); verification, which runs the patched
test for real, may still accept it. A patch that repeats another test's whole body is
not one a maintainer would merge, so such a verified transplant is shrunk once more by
:func:`~orderdep.core.ddmin.ddmin`, each step a real run of the patched project in the
failing and passing orders (at most :data:`MAX_CHECKS` runs); the caller verifies the
result in full before it replaces the original.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.analysis.repair.candidates.candidates import Candidate
from orderdep.analysis.repair.locate.module_names import ModuleNames
from orderdep.analysis.repair.verify.verify import Target, Verification, Verifier
from orderdep.analysis.repair.write.patches import Changes, Insertion, apply_insertions
from orderdep.core.ddmin import DDMinPreconditionError, ddmin
from orderdep.errors import UsageError

# Real runs one shrink may spend (each copies the project and runs the target's orders).
MAX_CHECKS = 16
_UNMINIMISED = re.compile(r"^the (\d+ )?statements of (?=cleaner )")
_NAME = re.compile(r"[A-Za-z_]\w*")


class _OutOfChecks(Exception):
    pass


def worth_shrinking(cand: Candidate) -> bool:
    """A one-insertion transplant whose statements screening could not minimise."""
    return (
        cand.strategy == "cleaner"
        and len(cand.insertions) == 1
        and bool(_UNMINIMISED.match(cand.description))
        and len(_body(cand.insertions[0])) > 1
    )


def _is_import(statement: str) -> bool:
    return statement.startswith(("import ", "from "))


def _body(ins: Insertion) -> list[str]:
    return [s for s in ins.statements if not _is_import(s)]


def _bound(statement: str) -> set[str]:
    """Names an import statement binds (``import a.b`` binds ``a``)."""
    return set(ModuleNames.parse(statement).import_lines)


def _with(ins: Insertion, kept: Sequence[str]) -> Insertion:
    """``ins`` keeping only ``kept`` of its statements, the imports and fixtures they use."""
    used = {name for s in kept for name in _NAME.findall(s)}
    imports = [s for s in ins.statements if _is_import(s) and _bound(s) & used]
    fixtures = tuple(f for f in ins.fixtures if f in used)
    return dataclasses.replace(ins, statements=(*imports, *kept), fixtures=fixtures)


def shrunk(cand: Candidate, works: Callable[[Candidate], bool]) -> Optional[Candidate]:
    """A smaller candidate whose statements are a 1-minimal subset that ``works`` (a real
    run) accepts, or None when none is found within :data:`MAX_CHECKS` runs."""
    ins = cand.insertions[0]
    body = _body(ins)
    spent = 0

    def holds(sub: list[str]) -> bool:
        nonlocal spent
        if len(sub) == len(body):
            return True  # verified already
        if spent >= MAX_CHECKS:
            raise _OutOfChecks
        spent += 1
        return works(_derived(cand, _with(ins, sub), sub, body))

    try:
        kept = ddmin(body, holds)
    except (DDMinPreconditionError, _OutOfChecks):
        return None
    if len(kept) == len(body):
        return None
    return _derived(cand, _with(ins, kept), kept, body)


def _derived(
    cand: Candidate, ins: Insertion, kept: Sequence[str], body: Sequence[str]
) -> Candidate:
    name = _UNMINIMISED.sub("", cand.description)
    description = (
        f"{len(kept)} of the {len(body)} statements of {name} (minimised by delta debugging "
        "on real runs)"
    )
    return dataclasses.replace(cand, description=description, insertions=[ins])


def shrink_verified(
    cand: Candidate,
    changes: Changes,
    check: Verification,
    verifier: Verifier,
    target: Target,
    progress: Callable[[str], None],
) -> tuple[Candidate, Changes, Verification]:
    """``cand`` (verified: ``changes``, ``check``) shrunk when it is worth it and the
    smaller patch passes the full verification too; else ``cand`` as it is."""
    if not worth_shrinking(cand):
        return cand, changes, check
    project = verifier.sources
    progress(f"shrinking a verified patch of {len(_body(cand.insertions[0]))} statements")

    def works(smaller: Candidate) -> bool:
        try:
            patch = apply_insertions(project, smaller.insertions)
        except UsageError:
            return False
        return verifier.verify(patch, target, orders_only=True).ok

    smaller = shrunk(cand, works)
    if smaller is None:
        return cand, changes, check
    try:
        smaller_changes = apply_insertions(project, smaller.insertions)
    except UsageError:
        return cand, changes, check
    full = verifier.verify(smaller_changes, target)
    if not full.ok:
        return cand, changes, check
    return smaller, smaller_changes, full


__all__ = ["MAX_CHECKS", "shrink_verified", "shrunk", "worth_shrinking"]
