"""Steps of ``orderdep fix`` that repair later OD tests ahead of their turns: once a fix
verifies, the later tests it may repair too are verified with it at once (brittles of
its state-setter, :mod:`~orderdep.analysis.repair.batch`; victims of its polluters,
:mod:`~orderdep.analysis.repair.victim_batch`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Optional

from orderdep.analysis.repair.batch import Ahead, setups_for_many
from orderdep.analysis.repair.collection_fix import STRATEGY as MODULE
from orderdep.analysis.repair.fix import Repairer
from orderdep.analysis.repair.fix_result import FixResult
from orderdep.analysis.repair.victim_batch import fixes_for_victims, sharers
from orderdep.core.report import ODFinding
from orderdep.engine.deadline import runs_until
from orderdep.errors import OutOfTime
from orderdep.shells.commands.debug_cmds import progress_line


def set_up_ahead(
    repairer: Repairer,
    finding: ODFinding,
    result: FixResult,
    later: Sequence[ODFinding],
    ahead: Ahead,
) -> None:
    """When ``result`` is a brittle's new set-up, the later brittles of its state-setter
    it repairs too, verified at once (:mod:`~orderdep.analysis.repair.batch`)."""
    if result.fix is None or finding.kind != "brittle" or result.batched:
        return  # a set-up verified ahead was tried for the others already
    if result.fix.strategy == MODULE:
        return  # at its file's top: verified as `pytest FILE`, not in orders
    rest = [f for f in later if f.test not in ahead.ready]
    try:
        ahead.ready.update(
            setups_for_many(repairer, finding, result.fix, rest, progress_line, ahead)
        )
    except OutOfTime:  # the budget ended: the brittles are left to their own turn
        pass


def victims_ahead(
    repairer: Repairer,
    finding: ODFinding,
    result: FixResult,
    later: Sequence[ODFinding],
    ahead: Ahead,
    share: Optional[float],
    left: Optional[float],
) -> None:
    """When ``result`` is a victim's root-cause fix, the later victims of its polluters it
    repairs too, verified at once (:mod:`~orderdep.analysis.repair.victim_batch`). The
    check may take a turn's ``share`` for each victim it serves, within ``left`` seconds."""
    if result.fix is None or result.batched:
        return
    rest = [f for f in later if f.test not in ahead.ready]
    served = len(sharers(finding, result.fix, rest))
    window = None if share is None else share * (1 + served)
    if left is not None:
        window = left if window is None else min(window, left)
    try:
        with runs_until(None if window is None else time.monotonic() + window):
            found = fixes_for_victims(repairer, finding, result.fix, rest, progress_line, ahead)
    except OutOfTime:  # the victims are left to their own turn
        progress_line(
            f"the check of {served} victim(s) at once did not end within {window or 0:.0f} s; "
            "each is verified in its own turn"
        )
        return
    ahead.ready.update(found)
