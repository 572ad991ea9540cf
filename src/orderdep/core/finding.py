"""One finding of the report (``od_tests[i]``): an order-dependent test and what
classification learnt about it; :mod:`orderdep.core.report` holds the findings.

The vocabulary (victim, brittle, polluter, cleaner, state-setter, groups) is 004 §2 and
iFixFlakies'; :meth:`ODFinding.to_spec` turns a finding into the
:class:`~orderdep.core.odmodel.ODSpec` whose semantics decide pass/fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from orderdep.core.json_values import expect_groups, expect_ids, expect_object, expect_str
from orderdep.core.odmodel import Kind, ODSpec
from orderdep.errors import ReportError

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
# The command that fills in a report's classification (named in error messages).
CLASSIFY_COMMAND = "orderdep classify"


def _no_flake_rates() -> dict[str, Optional[float]]:
    return dict.fromkeys(FLAKE_RATE_KEYS)


def suite_sorted(ids: Iterable[str], index: Mapping[str, int]) -> list[str]:
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
            "polluters": suite_sorted(self.polluters, index),
            "polluter_groups": _groups_sorted(self.polluter_groups, index),
            "cleaners": {k: suite_sorted(self.cleaners[k], index) for k in sorted(self.cleaners)},
            "state_setters": suite_sorted(self.state_setters, index),
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
