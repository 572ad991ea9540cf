"""Suites and ground-truth findings for the repair benchmark (bench_repair.py).

Two generated suites differ only in ``SuitePlan.channel_cleaners``: with it, every channel
victim that can have a cleaner test has one (iFixFlakies' patcher needs one); without
it, only the scenario victims (many cleaners, two polluters, polluter group) keep theirs.
Both keep the default plan's ND test (``app/balancer.py`` picks a replica through
``random.SystemRandom``): patch verification does not compare the report's ND tests, nor
tests whose outcome differs between two unpatched runs of the suite.

The finding handed to the repairer comes from the ground truth, not from detection, so
the repair figures do not depend on it: a victim's failing order is ``[polluter, victim]``
(the group's members for a polluter group) and its passing order ``[victim]``; a
brittle's failing order is ``[brittle]`` and its passing order ``[setter(s), brittle]``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orderdep.core import orders as gen
from orderdep.core.odmodel import ODSpec
from orderdep.core.report import ODFinding
from orderdep.core.suite import Suite
from orderdep.synth.generate import SuitePlan, generate_suite
from orderdep.synth.truth import GroundTruth

SUITES = ("cleaners", "no cleaners")


@dataclass
class BenchSuite:
    name: str  # one of SUITES
    root: Path
    truth: GroundTruth
    plan: SuitePlan


def plan_for(name: str, n_tests: int) -> SuitePlan:
    """The default plan for ``n_tests``, with or without channel cleaners."""
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; choose one of {SUITES!r}")
    return dataclasses.replace(SuitePlan.for_size(n_tests), channel_cleaners=name == "cleaners")


def make_suite(name: str, root: Path, n_tests: int, seed: int) -> BenchSuite:
    plan = plan_for(name, n_tests)
    truth = generate_suite(root, n_tests=n_tests, seed=seed, plan=plan)
    return BenchSuite(name, root, truth, plan)


def failing_orders(spec: ODSpec) -> list[list[str]]:
    """Every order of the ground truth in which the OD test fails, shortest form."""
    if spec.kind == "victim":
        return [[p, spec.test] for p in spec.polluters] + [
            [*g, spec.test] for g in spec.polluter_groups
        ]
    return [[spec.test]]


def passing_order(spec: ODSpec) -> list[str]:
    if spec.kind == "victim":
        return [spec.test]
    setters = list(spec.state_setters[:1]) or list(spec.state_setter_groups[0])
    return [*setters, spec.test]


def finding_for(spec: ODSpec) -> ODFinding:
    """The report entry a perfect classification would write for ``spec``."""
    return ODFinding.from_spec(
        spec, failing_order=failing_orders(spec)[0], passing_order=passing_order(spec)
    )


def shape(spec: ODSpec, channel: str) -> str:
    """What kind of planting ``spec`` is: a channel victim or one of the scenarios."""
    if spec.kind == "brittle":
        if spec.state_setter_groups:
            return "brittle, setter group"
        return "brittle, 2 setters" if len(spec.state_setters) > 1 else "brittle, 1 setter"
    if spec.polluter_groups:
        return "victim, polluter group"
    if len(spec.polluters) > 1:
        return "victim, 2 polluters"
    cleaners = max((len(c) for c in spec.cleaners.values()), default=0)
    if channel == "module_dict" and cleaners > 1:
        return "victim, many cleaners"
    return "victim"


def label(spec: ODSpec, channel: str) -> str:
    """The row name of an OD test: its channel, and the scenario when it is one."""
    s = shape(spec, channel)
    return channel if s == "victim" else f"{channel} ({s})"


def random_orders(suite: Sequence[str], n: int, seed: int) -> list[list[str]]:
    """``n`` seeded random orders keeping each class together (what `detect` runs)."""
    groups = list(Suite.from_ids(suite).groups("class").values())
    rng = random.Random(seed)
    return [gen.random_order(groups, rng) for _ in range(n)]
