"""The one exception root of orderdep.

Library code raises these; only the CLI's ``main()`` turns them into messages and exit
codes. Every message says what is wrong, shows the value and says what to do next.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Union


def shown_path(path: Union[str, os.PathLike[str]]) -> str:
    """``path`` as a message shows it: relative to the working directory when under it."""
    p = Path(path)
    try:
        return str(p.absolute().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(p)


class OrderdepError(Exception):
    """Root of every error orderdep raises on purpose. ``exit_code`` is what the CLI returns."""

    exit_code = 2


class UsageError(OrderdepError):
    """The user asked for something that cannot be done as asked (bad option, bad file)."""


class CollectionError(OrderdepError):
    """pytest could not collect the target project's tests."""


class NoTestsError(OrderdepError):
    """pytest collected nothing in the target project."""


class UnknownTestsError(OrderdepError):
    """Test ids that the collected suite does not contain."""

    def __init__(
        self, unknown: Sequence[str], suggestions: dict[str, list[str]], cause: str = ""
    ) -> None:
        self.unknown = list(unknown)
        self.suggestions = suggestions
        # The likely reason, in one line (ids that change between processes, say).
        self.cause = cause
        lines = [f"{len(self.unknown)} test id(s) are not in the collected suite:"]
        for test in self.unknown:
            close = suggestions.get(test) or []
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            lines.append(f"  {test!r}{hint}")
        if cause:
            lines.append(cause)
        lines.append("Run `orderdep collect` to list the test ids.")
        super().__init__("\n".join(lines))


class EngineError(OrderdepError):
    """The engine could not run an order (server died, child protocol broken)."""


class ReportError(OrderdepError):
    """A report or dependencies file is missing, malformed, or from another project/schema."""


class StoreError(OrderdepError):
    """The results store cannot be created, read, written or locked."""


class OutOfTime(OrderdepError):
    """The command's budget ended: the engine starts no more orders (see
    :mod:`orderdep.engine.deadline`). Work that cannot check its budget between its runs
    (a repair) stops there; not a failure of the project."""
