"""Tests that fail whenever the whole suite is collected and pass as ``pytest FILE``.

A test module can change shared state when it is imported: a ``sys.modules`` entry
replaced by a stub, an environment variable set, a setting patched at module level.
With the whole suite collected that code runs before any test, in every order, so a
test it breaks fails in every order orderdep searches (the search calls it failing in
every order) while ``pytest tests/test_x.py`` passes: the common "passes alone, fails in
the full run". The file runs of :mod:`~orderdep.analysis.collection_check` show which of
those tests pass with only their file collected; each is run that way once more and
alone with the whole suite collected, and the polluting file is found by halving the
other files (:func:`collection_victims`).
"""

from __future__ import annotations

from collections.abc import Sequence

from orderdep.analysis.budget import Budget
from orderdep.analysis.collection_check import (
    Collecting,
    CollectionRuns,
    FileRuns,
    collected_finding,
    fails_in,
    file_of,
    files_in_order,
)
from orderdep.core.report import ODFinding


def collection_victims(
    runner: Collecting,
    ids: Sequence[str],
    runs: FileRuns,
    budget: Budget,
    failing_everywhere: Sequence[str],
) -> list[ODFinding]:
    """The tests of ``failing_everywhere`` (in every order the search ran, the whole
    suite collected) that passed in their file's run: those that pass alone with only
    their file collected, twice, and fail alone with the whole suite collected, twice,
    each with the polluter found, while ``budget`` lasts."""
    files = files_in_order(ids)
    checks = CollectionRuns(runner, ids, budget, runs.run_seconds())
    by_file: dict[str, list[str]] = {}
    for test in failing_everywhere:
        if test in runs.passed:
            by_file.setdefault(file_of(test), []).append(test)
    found: list[ODFinding] = []
    for path, tests in by_file.items():
        real = checks.alone(path, tests, failing=False)
        for _ in range(2):  # fails with the whole suite collected, twice
            whole = checks.run(real, files) if real else None
            real = [t for t in real if whole is not None and fails_in(whole, t)]
        if real:
            real = checks.alone(path, real, failing=False)
        if not real:
            continue
        first, hurt = checks.partner(path, real, passing=False)
        found += [
            collected_finding(test, "victim", path, first if test in hurt else None)
            for test in real
        ]
    return found


__all__ = ["collection_victims"]
