"""A declarative model of order dependencies and when they make a test fail.

An :class:`ODSpec` states one OD test the way the papers describe it (004 §2, §4.1):
a *victim* fails when a polluter (or every member of a polluter group) ran before it
with no cleaner for that polluter in between; a *brittle* fails unless a state-setter
(or a whole state-setter group, in its order) ran before it. :func:`fails` decides
one order. Flake-rate formulas, the pure simulation in :mod:`orderdep.synth.model`
and the ground truth of generated suites all share these semantics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["victim", "brittle"]

GROUP_SEPARATOR = " + "


def group_key(members: Sequence[str]) -> str:
    """The key under which a polluter group's cleaners are stored (members in order)."""
    return GROUP_SEPARATOR.join(members)


@dataclass
class ODSpec:
    """One order-dependent test and the tests that affect it."""

    test: str
    kind: Kind
    polluters: list[str] = field(default_factory=list)
    polluter_groups: list[list[str]] = field(default_factory=list)
    # polluter id (or group_key(group)) -> tests that reset the state it pollutes
    cleaners: dict[str, list[str]] = field(default_factory=dict)
    state_setters: list[str] = field(default_factory=list)
    state_setter_groups: list[list[str]] = field(default_factory=list)

    def polluter_keys(self) -> list[tuple[str, list[str]]]:
        """Every polluter as (key, members): single polluters and polluter groups."""
        keys = [(p, [p]) for p in self.polluters]
        keys += [(group_key(g), list(g)) for g in self.polluter_groups]
        return keys

    def related_tests(self) -> set[str]:
        """Every test id this spec mentions."""
        out = {self.test, *self.polluters, *self.state_setters}
        for g in self.polluter_groups + self.state_setter_groups:
            out.update(g)
        for cs in self.cleaners.values():
            out.update(cs)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "kind": self.kind,
            "polluters": list(self.polluters),
            "polluter_groups": [list(g) for g in self.polluter_groups],
            "cleaners": {k: list(v) for k, v in self.cleaners.items()},
            "state_setters": list(self.state_setters),
            "state_setter_groups": [list(g) for g in self.state_setter_groups],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ODSpec:
        return cls(
            test=data["test"],
            kind=data["kind"],
            polluters=list(data.get("polluters", [])),
            polluter_groups=[list(g) for g in data.get("polluter_groups", [])],
            cleaners={k: list(v) for k, v in dict(data.get("cleaners", {})).items()},
            state_setters=list(data.get("state_setters", [])),
            state_setter_groups=[list(g) for g in data.get("state_setter_groups", [])],
        )


def _is_subsequence(needle: Sequence[str], hay: Sequence[str]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def fails_at(spec: ODSpec, prefix: Sequence[str]) -> bool:
    """Whether ``spec.test`` fails when ``prefix`` ran before it (in this process)."""
    if spec.kind == "brittle":
        if any(s in prefix for s in spec.state_setters):
            return False
        return not any(_is_subsequence(g, prefix) for g in spec.state_setter_groups)
    for key, members in spec.polluter_keys():
        cleaners = set(spec.cleaners.get(key, ()))
        pending = set(members)
        armed = False
        for test in prefix:
            if test in cleaners:
                pending, armed = set(members), False
            if test in pending:
                pending.discard(test)
                if not pending:
                    armed = True
        if armed:
            return True
    return False


def fails(spec: ODSpec, order: Sequence[str], occurrence: int = -1) -> bool:
    """Whether ``spec.test`` fails in ``order`` (at its given occurrence, default the last)."""
    positions = [i for i, t in enumerate(order) if t == spec.test]
    if not positions:
        raise ValueError(f"{spec.test!r} does not occur in the order")
    return fails_at(spec, order[: positions[occurrence]])
