"""Naming, once, the tests whose ids change between processes (see
:mod:`orderdep.core.volatile`): what collections and test processes reported."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Callable, Optional

from orderdep.core.volatile import align, changed, missing_notice, volatile_notice
from orderdep.engine.protocol import IdChanges


class IdNotices:
    """Collects the changed and unmatched ids of an engine's processes and names each
    test in one notice line, the first time it is seen."""

    def __init__(self, notice: Callable[[str], None]) -> None:
        self.notice = notice
        self.renamed: dict[str, str] = {}
        self.missing: dict[str, None] = {}
        self._lock = threading.Lock()

    def compare(self, reference: Sequence[str], collected: Sequence[str]) -> None:
        """Two collections of the suite: ``reference`` (whose ids orders use) and one
        made in another process."""
        gone = changed(reference, collected)
        if not gone:
            return
        aligned = align(reference, collected)
        self.report(
            {t: aligned[t] for t in gone if t in aligned}, [t for t in gone if t not in aligned]
        )

    def add(self, changes: IdChanges, say: Optional[Callable[[str], None]] = None) -> None:
        """What a worker's (or a plain runner's) test processes reported (see
        :class:`IdChanges`); ``say`` prints the notices instead of the engine's own."""
        if changes.renamed or changes.missing:
            self.report(changes.renamed, list(changes.missing), say)

    def report(
        self,
        renamed: dict[str, str],
        missing: Sequence[str],
        say: Optional[Callable[[str], None]] = None,
    ) -> None:
        with self._lock:
            new = [t for t in renamed if t not in self.renamed]
            self.renamed.update(renamed)
            lost = [t for t in missing if t not in self.missing and t not in self.renamed]
            self.missing.update(dict.fromkeys(lost))
        say = say or self.notice
        if new:
            say(volatile_notice(new))
        if lost:
            say(missing_notice(lost))
