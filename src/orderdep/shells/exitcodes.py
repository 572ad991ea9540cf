"""The exit codes every command shares (the README's table says which command uses which).

Findings (1) win over an incomplete search (3): a command that found order-dependent
tests exits 1 even when it stopped early, since what it found is true whatever it did
not reach. ``--allow-incomplete`` (key ``allow-incomplete``) turns 3 into 0 for users
who accept a partial search, a nightly job with a fixed budget say; the summary still
says what did not run.
"""

from __future__ import annotations

OK = 0
FINDINGS = 1
USAGE = 2
#: The command did not do all it promised (budget, an order cut short, a check that did
#: not finish) and found nothing in what it did: not a clean result.
INCOMPLETE = 3
#: A bug of orderdep's own (an exception nothing expected): never read as findings.
INTERNAL_ERROR = 70


def verdict_code(found: bool, complete: bool, allow_incomplete: bool = False) -> int:
    """The exit code of a searching command: findings first, then completeness."""
    if found:
        return FINDINGS
    if complete or allow_incomplete:
        return OK
    return INCOMPLETE


__all__ = ["FINDINGS", "INCOMPLETE", "INTERNAL_ERROR", "OK", "USAGE", "verdict_code"]
