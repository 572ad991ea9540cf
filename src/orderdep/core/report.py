"""The report file (schema ``orderdep.report/1``): what detection and classification found.

Layout::

    {"schema": "orderdep.report/1",
     "project": "<rootdir>",
     "tests": [ids in original order],
     "od_tests": [{"test": id, "kind": "victim" | "brittle" | null,
                   "failing_order": [...], "passing_order": [...],
                   "polluters": [...], "polluter_groups": [[...]],
                   "cleaners": {polluter id or group_key(group): [...]},
                   "state_setters": [...], "state_setter_groups": [[...]],
                   "flake_rate": {"all": null, "grouped": null, "reverse": null}}],
     "nd_tests": [...], "nio_tests": [...], "always_failing": [...],
     "stats": {"orders_run": 0, "test_executions": 0, "wall_seconds": 0.0,
               "seed": 0, "strategies": [...]}}

The vocabulary (victim, brittle, polluter, cleaner, state-setter, groups) is 004 §2 and
iFixFlakies'; :meth:`ODFinding.to_spec` turns a finding into the
:class:`~orderdep.core.odmodel.ODSpec` whose semantics decide pass/fail.

A command stopped by its budget or Ctrl-C adds (optional keys, kept by every reader):
``"unfinished": {"cleaners": "not searched (budget)", ...}`` in a finding, and
``"classify_stopped"`` or ``"unfinished": {"confirmation": ..., "suspects": [...]}`` in
``stats``; rerunning the command completes the report and removes them. Detection also
records what it promised and what of it did not run (``"promised"``, per strategy
``"orders_promised"`` and ``"unrun_positions"`` in ``"coverage"``, and the sentences in
``"shortfalls"``; see :mod:`orderdep.core.promise`).

Output is stable: ids that form sets are written in suite order, cleaner maps by key,
orders and group members exactly as found. Keys this module does not know (added by
later features, e.g. ``"evidence"``) are kept and written back unchanged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from orderdep.core.json_values import (
    expect_float,
    expect_groups,
    expect_ids,
    expect_int,
    expect_object,
    expect_str,
)
from orderdep.core.jsonfile import load_json_file, write_text_file
from orderdep.core.odmodel import Kind, ODSpec
from orderdep.errors import ReportError

__all__ = ["load_json_file"]  # re-exported: readers of other files import it from here

SCHEMA = "orderdep.report/1"
FLAKE_RATE_KEYS: tuple[str, ...] = ("all", "grouped", "reverse")
KINDS: tuple[str, ...] = ("victim", "brittle")
#: Set (true) in a finding's JSON when its flake rates are upper bounds: they were
#: computed from the cleaners found, and more may exist (one looked for per polluter).
FLAKE_RATE_BOUND_KEY = "flake_rate_is_upper_bound"
#: In a finding's JSON when its outcome needs more tests together than group searches
#: look for one at a time (a shared random generator's state, say): for its "failing"
#: and/or "passing" order, a sentence saying so. That order stayed long, and no group is
#: reported for it.
MANY_TESTS_KEY = "needs_many_tests"
#: In a finding's JSON when the budget ended before each order that shows it was seen as
#: many times as asked (``--confirm-runs`` + 1): ``{"runs": n, "asked": m}``, n the
#: fewest times one of them was seen (never below ``analysis.confirm.FIRST_LOOK``). A
#: rerun of the command observes the rest.
OBSERVED_KEY = "observed_fewer"
#: In a brittle finding's JSON: its outcome alone as ``pytest ID`` runs it (only its own
#: file collected). "passed" says that another test module's import-time code, which
#: runs when the whole suite is collected (in every order orderdep runs, in shuffled runs
#: and in xdist workers), leaves the state it fails on.
OWN_FILE_KEY = "alone_in_own_file"
#: In the JSON of a finding whose orders show it only when pytest collects part of the
#: suite (``pytest FILE ...``): ``{"failing": [files], "passing": [files] | "suite"}``,
#: the files each order's pytest collects, in the order given to it ("suite": all).
COLLECTED_KEY = "collects"
#: In a report's ``stats.extras``: {"files", "run", "found"} of ``detect``'s collection
#: check (each test file run as ``pytest FILE`` runs it).
COLLECTION_CHECK_KEY = "collection_check"
# The commands that write a report / fill in its classification (named in error messages).
DETECT_COMMAND = "orderdep detect"
CLASSIFY_COMMAND = "orderdep classify"

PathLike = Union[str, "os.PathLike[str]"]


def _no_flake_rates() -> dict[str, Optional[float]]:
    return dict.fromkeys(FLAKE_RATE_KEYS)


def _suite_sorted(ids: Iterable[str], index: Mapping[str, int]) -> list[str]:
    """``ids`` in suite order; ids the suite does not know keep their order, at the end."""
    return sorted(ids, key=lambda t: index.get(t, len(index)))


def _groups_sorted(groups: Iterable[Sequence[str]], index: Mapping[str, int]) -> list[list[str]]:
    # Members keep their order (it is part of the finding); groups are sorted by it.
    return sorted((list(g) for g in groups), key=lambda g: [index.get(t, len(index)) for t in g])


@dataclass
class ODFinding:
    """One order-dependent test and what classification learnt about it (004 §4.1)."""

    test: str
    kind: Optional[Kind] = None
    failing_order: list[str] = field(default_factory=list)
    passing_order: list[str] = field(default_factory=list)
    polluters: list[str] = field(default_factory=list)
    polluter_groups: list[list[str]] = field(default_factory=list)
    # polluter id, or odmodel.group_key(group) for a polluter group -> its cleaners
    cleaners: dict[str, list[str]] = field(default_factory=dict)
    state_setters: list[str] = field(default_factory=list)
    state_setter_groups: list[list[str]] = field(default_factory=list)
    flake_rate: dict[str, Optional[float]] = field(default_factory=_no_flake_rates)
    # keys of the JSON object this version does not interpret; written back unchanged
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def classified(self) -> bool:
        return self.kind is not None

    @property
    def flake_rate_is_upper_bound(self) -> bool:
        """True when classification left cleaners unsearched, so a random order may pass
        more often than the flake rates say."""
        return self.extras.get(FLAKE_RATE_BOUND_KEY) is True

    @property
    def needs_many_tests(self) -> list[str]:
        """Why its orders stayed long (see :data:`MANY_TESTS_KEY`); empty for most."""
        said = self.extras.get(MANY_TESTS_KEY)
        return [str(x) for x in said.values()] if isinstance(said, dict) else []

    def needs_many_tests_in(self, order: str) -> bool:
        """Whether its ``"failing"`` (``"passing"``) order needs many tests together."""
        said = self.extras.get(MANY_TESTS_KEY)
        return isinstance(said, dict) and order in said

    def say_needs_many_tests(self, order: str, sentence: str) -> None:
        """Record that its ``"failing"`` (``"passing"``) order needs many tests together."""
        said = self.extras.get(MANY_TESTS_KEY)
        self.extras[MANY_TESTS_KEY] = {**(said if isinstance(said, dict) else {}), order: sentence}

    @property
    def observed_fewer(self) -> Optional[tuple[int, int]]:
        """(runs, asked) when its orders were seen fewer times than asked (see
        :data:`OBSERVED_KEY`); None for most."""
        said = self.extras.get(OBSERVED_KEY)
        if not isinstance(said, dict):
            return None
        runs, asked = said.get("runs"), said.get("asked")
        return (runs, asked) if isinstance(runs, int) and isinstance(asked, int) else None

    def say_observed(self, runs: int, asked: int) -> None:
        """Record that its orders were seen ``runs`` times, fewer than the ``asked``."""
        self.extras[OBSERVED_KEY] = {"runs": runs, "asked": asked}

    def to_spec(self) -> ODSpec:
        """The finding as an :class:`ODSpec` (needs a kind: classify first)."""
        if self.kind is None:
            raise ReportError(
                f"OD test {self.test!r} is not classified yet (kind is null); "
                f"run `{CLASSIFY_COMMAND}` first."
            )
        return ODSpec(
            test=self.test,
            kind=self.kind,
            polluters=list(self.polluters),
            polluter_groups=[list(g) for g in self.polluter_groups],
            cleaners={k: list(v) for k, v in self.cleaners.items()},
            state_setters=list(self.state_setters),
            state_setter_groups=[list(g) for g in self.state_setter_groups],
        )

    @classmethod
    def from_spec(
        cls,
        spec: ODSpec,
        *,
        failing_order: Sequence[str] = (),
        passing_order: Sequence[str] = (),
    ) -> ODFinding:
        return cls(
            test=spec.test,
            kind=spec.kind,
            failing_order=list(failing_order),
            passing_order=list(passing_order),
            polluters=list(spec.polluters),
            polluter_groups=[list(g) for g in spec.polluter_groups],
            cleaners={k: list(v) for k, v in spec.cleaners.items()},
            state_setters=list(spec.state_setters),
            state_setter_groups=[list(g) for g in spec.state_setter_groups],
        )

    def to_json(self, suite_order: Sequence[str] = ()) -> dict[str, Any]:
        """JSON form; sets of ids are written in ``suite_order`` (the report's ``tests``)."""
        index = {t: i for i, t in enumerate(suite_order)}
        out: dict[str, Any] = {
            "test": self.test,
            "kind": self.kind,
            "failing_order": list(self.failing_order),
            "passing_order": list(self.passing_order),
            "polluters": _suite_sorted(self.polluters, index),
            "polluter_groups": _groups_sorted(self.polluter_groups, index),
            "cleaners": {k: _suite_sorted(self.cleaners[k], index) for k in sorted(self.cleaners)},
            "state_setters": _suite_sorted(self.state_setters, index),
            "state_setter_groups": _groups_sorted(self.state_setter_groups, index),
            "flake_rate": {
                **{k: self.flake_rate.get(k) for k in FLAKE_RATE_KEYS},
                **{k: v for k, v in sorted(self.flake_rate.items()) if k not in FLAKE_RATE_KEYS},
            },
        }
        for key in sorted(self.extras):
            out.setdefault(key, self.extras[key])
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "od_tests[?]") -> ODFinding:
        """Parse and validate one ``od_tests`` entry; ``where`` locates it in messages."""
        obj = expect_object(data, where)
        kind = obj.get("kind")
        if kind is not None and kind not in KINDS:
            raise ReportError(f"{where}.kind must be 'victim', 'brittle' or null, got {kind!r}.")
        rates = expect_object(obj.get("flake_rate", {}), f"{where}.flake_rate")
        flake_rate: dict[str, Optional[float]] = _no_flake_rates()
        for key, value in rates.items():
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))
            ):
                raise ReportError(
                    f"{where}.flake_rate.{key} must be a number or null, got {value!r}."
                )
            flake_rate[str(key)] = None if value is None else float(value)
        known = {
            "test", "kind", "failing_order", "passing_order", "polluters", "polluter_groups",
            "cleaners", "state_setters", "state_setter_groups", "flake_rate",
        }  # fmt: skip
        return cls(
            test=expect_str(obj.get("test"), f"{where}.test"),
            kind=kind,
            failing_order=expect_ids(obj.get("failing_order", []), f"{where}.failing_order"),
            passing_order=expect_ids(obj.get("passing_order", []), f"{where}.passing_order"),
            polluters=expect_ids(obj.get("polluters", []), f"{where}.polluters"),
            polluter_groups=expect_groups(
                obj.get("polluter_groups", []), f"{where}.polluter_groups"
            ),
            cleaners={
                str(k): expect_ids(v, f"{where}.cleaners[{k!r}]")
                for k, v in expect_object(obj.get("cleaners", {}), f"{where}.cleaners").items()
            },
            state_setters=expect_ids(obj.get("state_setters", []), f"{where}.state_setters"),
            state_setter_groups=expect_groups(
                obj.get("state_setter_groups", []), f"{where}.state_setter_groups"
            ),
            flake_rate=flake_rate,
            extras={k: v for k, v in obj.items() if k not in known},
        )

    def mentioned_ids(self) -> set[str]:
        """Every test id this finding names (for consistency checks)."""
        out = {self.test, *self.failing_order, *self.passing_order}
        out.update(self.polluters, self.state_setters)
        for g in self.polluter_groups + self.state_setter_groups:
            out.update(g)
        for cs in self.cleaners.values():
            out.update(cs)
        return out


@dataclass
class RunStats:
    """What producing the report cost, and the seed that reproduces it."""

    orders_run: int = 0
    test_executions: int = 0
    wall_seconds: float = 0.0
    seed: int = 0
    strategies: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "orders_run": self.orders_run,
            "test_executions": self.test_executions,
            "wall_seconds": round(self.wall_seconds, 6),
            "seed": self.seed,
            "strategies": list(self.strategies),
        }
        for key in sorted(self.extras):
            out.setdefault(key, self.extras[key])
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "stats") -> RunStats:
        obj = expect_object(data, where)
        known = {"orders_run", "test_executions", "wall_seconds", "seed", "strategies"}
        return cls(
            orders_run=expect_int(obj.get("orders_run", 0), f"{where}.orders_run"),
            test_executions=expect_int(obj.get("test_executions", 0), f"{where}.test_executions"),
            wall_seconds=expect_float(obj.get("wall_seconds", 0.0), f"{where}.wall_seconds"),
            seed=expect_int(obj.get("seed", 0), f"{where}.seed"),
            strategies=expect_ids(obj.get("strategies", []), f"{where}.strategies"),
            extras={k: v for k, v in obj.items() if k not in known},
        )


@dataclass
class Report:
    """The whole report: the suite, its OD findings and the other flaky/failing tests."""

    project: str
    tests: list[str]
    od_tests: list[ODFinding] = field(default_factory=list)
    nd_tests: list[str] = field(default_factory=list)
    nio_tests: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)
    stats: RunStats = field(default_factory=RunStats)
    extras: dict[str, Any] = field(default_factory=dict)

    def finding(self, test: str) -> Optional[ODFinding]:
        """The finding for ``test``, or None if it is not an OD test of this report."""
        for f in self.od_tests:
            if f.test == test:
                return f
        return None

    @property
    def od_ids(self) -> list[str]:
        return [f.test for f in self.od_tests]

    def to_json(self) -> dict[str, Any]:
        index = {t: i for i, t in enumerate(self.tests)}
        findings = sorted(self.od_tests, key=lambda f: index.get(f.test, len(index)))
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "project": self.project,
            "tests": list(self.tests),
            "od_tests": [f.to_json(self.tests) for f in findings],
            "nd_tests": _suite_sorted(self.nd_tests, index),
            "nio_tests": _suite_sorted(self.nio_tests, index),
            "always_failing": _suite_sorted(self.always_failing, index),
            "stats": self.stats.to_json(),
        }
        for key in sorted(self.extras):
            out.setdefault(key, self.extras[key])
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Any, source: str = "report") -> Report:
        """Parse and validate a report object; ``source`` (e.g. the path) starts messages."""
        obj = expect_object(data, source)
        schema = obj.get("schema")
        if schema != SCHEMA:
            raise ReportError(
                f"{source} has schema {schema!r}, but this orderdep reads {SCHEMA!r}; "
                f"re-create it with `{DETECT_COMMAND}`."
            )
        for key in ("project", "tests", "od_tests"):
            if key not in obj:
                raise ReportError(
                    f"{source} has no {key!r} key, so it is not a complete {SCHEMA} report; "
                    f"re-create it with `{DETECT_COMMAND}`."
                )
        tests = expect_ids(obj["tests"], f"{source}: tests")
        raw_findings = obj["od_tests"]
        if not isinstance(raw_findings, list):
            raise ReportError(f"{source}: od_tests must be a list, got {raw_findings!r}.")
        findings = [
            ODFinding.from_json(f, f"{source}: od_tests[{i}]") for i, f in enumerate(raw_findings)
        ]
        known = {
            "schema", "project", "tests", "od_tests", "nd_tests", "nio_tests",
            "always_failing", "stats",
        }  # fmt: skip
        report = cls(
            project=expect_str(obj["project"], f"{source}: project"),
            tests=tests,
            od_tests=findings,
            nd_tests=expect_ids(obj.get("nd_tests", []), f"{source}: nd_tests"),
            nio_tests=expect_ids(obj.get("nio_tests", []), f"{source}: nio_tests"),
            always_failing=expect_ids(obj.get("always_failing", []), f"{source}: always_failing"),
            stats=RunStats.from_json(obj.get("stats", {}), f"{source}: stats"),
            extras={k: v for k, v in obj.items() if k not in known},
        )
        report.check_consistent(source)
        return report

    def check_consistent(self, source: str = "report") -> None:
        """Every id the report names is one of its ``tests``; no OD test is listed twice."""
        known = set(self.tests)
        seen: set[str] = set()
        for f in self.od_tests:
            if f.test in seen:
                raise ReportError(
                    f"{source}: OD test {f.test!r} is listed twice in od_tests; "
                    "keep one entry (or re-create the report)."
                )
            seen.add(f.test)
        mentioned: list[tuple[str, str]] = []
        for f in self.od_tests:
            mentioned += [(t, f"od_tests entry for {f.test!r}") for t in sorted(f.mentioned_ids())]
        for name in ("nd_tests", "nio_tests", "always_failing"):
            mentioned += [(t, name) for t in getattr(self, name)]
        for test, where in mentioned:
            if test not in known:
                raise ReportError(
                    f"{source}: {where} names {test!r}, which is not in the report's tests; "
                    f"the file was edited or is damaged: re-create it with `{DETECT_COMMAND}`."
                )


def _same_project(a: str, b: str) -> bool:
    def norm(p: str) -> str:
        return os.path.normcase(os.path.realpath(os.path.abspath(p)))

    return a == b or norm(a) == norm(b)


def load_report(path: PathLike, project: Optional[str] = None) -> Report:
    """Load and validate a report; with ``project`` (a rootdir), refuse another project's."""
    data = load_json_file(path, "report", f"create one with `{DETECT_COMMAND}`.")
    report = Report.from_json(data, source=f"report {str(path)!r}")
    # A report inside the project's own .orderdep/ is that project's wherever it now is
    # (a copy, a fresh clone, a CI checkout); tests it names that are not collected there
    # are caught when the orders run.
    own = _same_project(os.path.dirname(os.path.dirname(os.path.abspath(path))), project or "")
    if project is not None and not own and not _same_project(report.project, project):
        raise ReportError(
            f"report {str(path)!r} is for project {report.project!r}, not {project!r}; "
            f"pass that project's report, or run `{DETECT_COMMAND}` in {project!r}."
        )
    return report


def save_report(path: PathLike, report: Report) -> None:
    """Write ``report`` as stable, indented JSON (atomically: a crash leaves the old file)."""
    write_text_file(path, report.dumps(), "report", "--report PATH")
