"""What a fresh pytest collects beside the fork runner, for its check
(:mod:`orderdep.analysis.fork_trust`): tests it does not collect at all are left out of
the comparison, and a suite it collects only once the fork runner's test processes stop
is checked with them stopped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable

from orderdep.core.outcomes import OrderResult
from orderdep.engine.plain import PlainRunner
from orderdep.engine.protocol import IdChanges
from orderdep.engine.runner import Engine


def alone_collects(
    engine: Engine,
    plain: PlainRunner,
    ids: Sequence[str],
    results: dict[str, OrderResult],
    notice: Callable[[str], None],
) -> bool:
    """Whether a fresh pytest collects the suite only while the fork runner's test
    processes are stopped (a suite that binds a fixed port at import, say): when it
    collected none of ``ids`` beside them, it runs ``ids`` again with them stopped, and
    that run takes its place in ``results``."""
    if not ids or not set(ids) <= set(plain.ids.missing) or not engine.running:
        return False
    engine.release()
    changes, plain.ids = plain.ids, IdChanges()
    again = plain.run(ids)
    if set(ids) <= set(plain.ids.missing):
        plain.ids = changes  # not the fork runner's doing
        return False
    results["plain"] = again
    notice(
        "orderdep: a fresh pytest collected no test while the fork runner's processes "
        "ran, and collects them once they stop (a port the suite binds at import, say): "
        "each fresh pytest of this check runs with them stopped"
    )
    return True


def without_missing(ids: list[str], plain: PlainRunner, notice: Callable[[str], None]) -> list[str]:
    """``ids`` without the tests a fresh pytest did not collect at all (their ids changed
    and their parametrize sets differ in size): those cannot be compared."""
    missing = set(plain.ids.missing)
    if not missing:
        return ids
    notice(
        f"orderdep: checking the fork runner: {len(missing)} test(s) left out of the "
        f"comparison (not collected in a fresh pytest); the original order again without them"
    )
    return [t for t in ids if t not in missing]


__all__ = ["alone_collects", "without_missing"]
