"""Where a failing run's order comes from, on test-id strings: JUnit XML and recorded runs.

pytest's JUnit XML (``--junitxml``) lists one ``<testcase>`` per test in the order its
first report arrived, named by ``classname`` and ``name`` (pytest's
``mangle_test_address``: the file path dotted, without ``.py``, then the enclosing
classes; the test name with its parameters). Under pytest-xdist the reports of every
worker arrive interleaved and the file does not say which worker ran a test, unless the
test case carries an ``xdist_worker`` property (orderdep's plugin adds it under xdist);
without it, the order is every test reported before the failing one, all workers mixed.

A recorded run (:mod:`orderdep.shells.plugin_last`) is one entry per process: the
process (``main``, or an xdist worker id), the run's id, when it ended, the ids it ran in
order and those that failed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from orderdep.errors import UsageError

WORKER_PROPERTY = "xdist_worker"


def junit_name(node_id: str) -> tuple[str, str]:
    """(classname, name) that pytest's JUnit XML writes for ``node_id``."""
    path, bracket, params = node_id.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


@dataclass(frozen=True)
class JunitCase:
    classname: str
    name: str
    failed: bool
    worker: Optional[str] = None


def parse_junit(text: str, source: str = "the JUnit file") -> list[JunitCase]:
    """The test cases of a JUnit XML report, in file order."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise UsageError(
            f"{source} is not valid JUnit XML ({exc}); pass the file pytest wrote with "
            "--junitxml=FILE"
        ) from None
    cases = []
    for case in root.iter("testcase"):
        worker = None
        for prop in case.iter("property"):
            if prop.get("name") == WORKER_PROPERTY:
                worker = prop.get("value")
        failed = any(child.tag in ("failure", "error") for child in case)
        cases.append(JunitCase(case.get("classname", ""), case.get("name", ""), failed, worker))
    if not cases:
        raise UsageError(
            f"{source} has no <testcase> elements; pass the file pytest wrote with --junitxml=FILE"
        )
    return cases


def junit_order(cases: Sequence[JunitCase], suite_ids: Iterable[str], test: str) -> list[str]:
    """The order the JUnit cases name, as ids of the suite, up to and including ``test``.

    A case whose name no suite id has is left out (a ``junit_prefix`` before the class name
    is allowed). With worker properties, only the cases of ``test``'s worker are kept.
    """
    by_name: dict[tuple[str, str], str] = {}
    for known in suite_ids:
        by_name.setdefault(junit_name(known), known)
    wanted = junit_name(test)

    def lookup(case: JunitCase) -> Optional[str]:
        found = by_name.get((case.classname, case.name))
        if found is None and "." in case.classname:  # junit_prefix = "prefix"
            found = by_name.get((case.classname.split(".", 1)[1], case.name))
        return found

    ids = [lookup(c) for c in cases]
    at = next((i for i, c in enumerate(cases) if ids[i] == test), None)
    if at is None:
        at = next((i for i, c in enumerate(cases) if (c.classname, c.name) == wanted), None)
    if at is None:
        raise UsageError(
            f"{test!r} is not a test case of the JUnit file ({len(cases)} cases); "
            "check the id (`orderdep collect` lists them) or pass the report of the run "
            "in which it failed"
        )
    worker = cases[at].worker
    out: list[str] = []
    for case, found in zip(cases[:at], ids[:at]):
        if found is not None and found != test and (worker is None or case.worker == worker):
            out.append(found)
    return [*out, test]


# -- recorded runs (the plugin's cache entries) ----------------------------------------------
@dataclass
class RecordedProcess:
    """What one pytest process (``main`` or an xdist worker) of a run executed."""

    process: str
    run: str
    ended: float
    order: list[str]
    failed: list[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: Any) -> Optional[RecordedProcess]:
        try:
            return cls(
                str(data["process"]),
                str(data["run"]),
                float(data["ended"]),
                [str(t) for t in data["order"]],
                [str(t) for t in data.get("failed", [])],
            )
        except (KeyError, TypeError, ValueError):
            return None

    def to_json(self) -> dict[str, Any]:
        return {
            "process": self.process,
            "run": self.run,
            "ended": self.ended,
            "order": self.order,
            "failed": self.failed,
        }


def last_run(entries: Iterable[RecordedProcess]) -> list[RecordedProcess]:
    """The processes of the run that ended last (entries of older runs are ignored)."""
    entries = list(entries)
    if not entries:
        return []
    newest = max(entries, key=lambda e: e.ended).run
    return sorted((e for e in entries if e.run == newest), key=lambda e: e.process)


def recorded_order(processes: Sequence[RecordedProcess], test: str) -> list[str]:
    """The order of the process that ran ``test`` (one where it failed, if any), up to it."""
    ran = [p for p in processes if test in p.order]
    if not ran:
        raise UsageError(
            f"{test!r} did not run in the last recorded pytest run "
            f"({sum(len(p.order) for p in processes)} tests); run pytest with the failing "
            "order again, or pass --order-file / --junitxml"
        )
    chosen = next((p for p in ran if test in p.failed), ran[0])
    order = chosen.order
    return order[: order.index(test) + 1]
