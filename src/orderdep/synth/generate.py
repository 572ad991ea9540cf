"""Generate a real pytest project with planted order dependencies and its exact ground truth.

:func:`generate_suite` writes an ``app`` package (registries, caches, settings, files...)
and a ``tests`` folder of modules and classes in which the tests a :class:`SuitePlan` asks
for are planted among independent filler tests: victims with polluters and cleaners
through every state channel of :data:`~orderdep.synth.channels.CHANNELS`, brittles with
state-setters (004 §2), polluter and state-setter groups, an ND and a NIO test. By
default the original order passes. Everything comes from one seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orderdep.core.odmodel import GROUP_SEPARATOR, ODSpec, group_key
from orderdep.errors import UsageError
from orderdep.synth import channels, fillers, scenarios
from orderdep.synth.channels import CHANNELS
from orderdep.synth.planting import Planting
from orderdep.synth.render import Placed, render_project
from orderdep.synth.truth import GroundTruth

__all__ = ["CHANNELS", "GroundTruth", "SuitePlan", "generate_suite"]

TOPICS: tuple[str, ...] = (
    "accounts", "admin", "api", "audit", "auth", "billing", "cache", "checkout", "discounts",
    "emails", "exports", "imports", "inventory", "invoices", "jobs", "notifications",
    "orders", "payments", "pricing", "reports", "search", "sessions", "shipping", "tasks",
    "users", "webhooks",
)  # fmt: skip


@dataclass(frozen=True)
class SuitePlan:
    """What to plant. The default plants every channel and scenario once (~63 tests)."""

    channels: tuple[str, ...] = CHANNELS  # one victim (+ polluter) per channel
    channel_cleaners: bool = True  # a cleaner test for each channel victim that can have one
    many_cleaners: int = 4  # cleaners of the many-cleaner victim; 0 plants no such victim
    two_polluters: bool = True  # victim with two polluters and different cleaner sets
    polluter_group: bool = True  # victim failing only after both tests of a group
    brittles_one_setter: int = 2  # brittles with one state-setter each
    brittle_two_setters: bool = True  # brittle with two (alternative) state-setters
    brittle_setter_group: bool = True  # brittle needing three state-setters in order
    nd_tests: int = 1  # tests failing at random, whatever the order
    nd_rate: float = 0.5  # failure probability of each ND test
    nio_tests: int = 1  # tests failing when run twice in one process
    always_failing: bool = False  # one test failing in every order
    original_order_fails: bool = False  # first channel's polluter before its victim
    copies: int = 1  # plant every OD scenario this many times (cwd only once)
    class_share: float = 0.35  # chance that a run of tests in a module forms a class

    def __post_init__(self) -> None:
        unknown = [c for c in self.channels if c not in CHANNELS]
        if unknown:
            raise UsageError(
                f"unknown channel(s) {unknown!r} in SuitePlan; choose from {list(CHANNELS)!r}"
            )
        counts = {
            "many_cleaners": self.many_cleaners,
            "brittles_one_setter": self.brittles_one_setter,
            "nd_tests": self.nd_tests,
            "nio_tests": self.nio_tests,
        }
        for name, value in counts.items():
            if value < 0:
                raise UsageError(f"SuitePlan.{name} must be >= 0, got {value!r}")
        if self.copies < 1:
            raise UsageError(f"SuitePlan.copies must be >= 1, got {self.copies!r}")
        for name in ("nd_rate", "class_share"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise UsageError(f"SuitePlan.{name} must be within [0, 1], got {value!r}")
        if self.original_order_fails and not self.channels:
            raise UsageError(
                "SuitePlan.original_order_fails needs at least one channel to place a "
                "polluter before its victim; add a channel or drop the flag"
            )

    def planted_count(self) -> int:
        """How many tests the plantings take (fillers make up the rest of the suite)."""
        return sum(len(p.tests) for p in build_plantings(self, random.Random(0)))

    @classmethod
    def for_size(cls, n_tests: int) -> SuitePlan:
        """The default plan, trimmed so that at least a fifth of ``n_tests`` are fillers."""
        plan = cls()
        budget = n_tests - max(2, n_tests // 5)
        for step in _TRIM_STEPS:
            if plan.planted_count() <= budget:
                break
            plan = step(plan)
        return plan

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["channels"] = list(self.channels)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SuitePlan:
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise UsageError(f"unknown SuitePlan field(s) {unknown!r}; known: {sorted(fields)!r}")
        values = dict(data)
        if "channels" in values:
            values["channels"] = tuple(values["channels"])
        return cls(**values)


def _drop_channel(name: str) -> Any:
    def step(plan: SuitePlan) -> SuitePlan:
        return dataclasses.replace(plan, channels=tuple(c for c in plan.channels if c != name))

    return step


# Applied in order until the plan fits: cheap extras first, the basic channels last.
_TRIM_STEPS = (
    lambda p: dataclasses.replace(p, channel_cleaners=False),
    lambda p: dataclasses.replace(p, brittles_one_setter=1),
    lambda p: dataclasses.replace(p, many_cleaners=2),
    _drop_channel("sys_modules"),
    _drop_channel("home_file"),
    lambda p: dataclasses.replace(p, brittle_two_setters=False),
    _drop_channel("sys_path"),
    _drop_channel("class_attr"),
    lambda p: dataclasses.replace(p, two_polluters=False),
    _drop_channel("test_module_global"),
    _drop_channel("session_fixture"),
    lambda p: dataclasses.replace(p, nio_tests=0),
    _drop_channel("project_file"),
    lambda p: dataclasses.replace(p, brittle_setter_group=False),
    _drop_channel("lru_cache"),
    lambda p: dataclasses.replace(p, polluter_group=False),
    _drop_channel("cwd"),
    lambda p: dataclasses.replace(p, nd_tests=0),
    lambda p: dataclasses.replace(p, many_cleaners=0),
    _drop_channel("module_fixture"),
    _drop_channel("env_var"),
    lambda p: dataclasses.replace(p, brittles_one_setter=0),
    _drop_channel("module_dict"),
)


def _nouns(rng: random.Random) -> Any:
    round_ = 0
    while True:
        for noun in rng.sample(channels.NOUNS, len(channels.NOUNS)):
            yield noun if round_ == 0 else f"{noun}{round_ + 1}"
        round_ += 1


def build_plantings(plan: SuitePlan, rng: random.Random) -> list[Planting]:
    """The scenarios ``plan`` asks for, each with its own noun (so its own state)."""
    nouns = _nouns(rng)
    out: list[Planting] = []
    for copy in range(plan.copies):
        for i, channel in enumerate(plan.channels):
            if copy > 0 and channel in channels.SINGLE_CELL_CHANNELS:
                continue
            cleaner = plan.channel_cleaners and channel not in channels.CHANNELS_WITHOUT_CLEANERS
            first = plan.original_order_fails and copy == 0 and i == 0
            out.append(channels.CHANNEL_BUILDERS[channel](next(nouns), rng, cleaner, first))
        if plan.many_cleaners:
            out.append(scenarios.many_cleaners(next(nouns), rng, plan.many_cleaners))
        if plan.two_polluters:
            out.append(scenarios.two_polluters(next(nouns), rng))
        if plan.polluter_group:
            out.append(scenarios.polluter_group(next(nouns), rng))
        for _ in range(plan.brittles_one_setter):
            out.append(scenarios.brittle_setters(next(nouns), rng, 1))
        if plan.brittle_two_setters:
            out.append(scenarios.brittle_setters(next(nouns), rng, 2))
        if plan.brittle_setter_group:
            out.append(scenarios.brittle_setter_group(next(nouns), rng))
    out.extend(scenarios.nondeterministic(next(nouns), rng) for _ in range(plan.nd_tests))
    out.extend(scenarios.non_idempotent(next(nouns), rng) for _ in range(plan.nio_tests))
    if plan.always_failing:
        out.append(scenarios.always_failing(next(nouns), rng))
    return out


def _module_names(count: int) -> list[str]:
    names = [f"test_{t}" for t in TOPICS[:count]]
    k = 2
    while len(names) < count:
        names += [f"test_{t}_{k}" for t in TOPICS[: count - len(names)]]
        k += 1
    return sorted(names)


Position = tuple[int, float]  # (module index, sort key within the module)


def _place(planting: Planting, n_modules: int, rng: random.Random) -> dict[str, Position]:
    """Random positions for a planting's roles that respect its order constraints."""
    pos = {role: (rng.randrange(n_modules), rng.random()) for role in planting.tests}
    shared = [r for r in planting.same_module if r in pos]
    if shared:
        module = pos[shared[0]][0]
        for role in shared:
            pos[role] = (module, pos[role][1])
    for _ in range(len(planting.chains) + 1):  # a chain's sort can only move its head earlier
        for chain in planting.chains:
            for role, p in zip(chain, sorted(pos[r] for r in chain)):
                pos[role] = p
    for chain in planting.chains:
        assert all(pos[a] < pos[b] for a, b in zip(chain, chain[1:])), (planting, pos)
    return pos


def _resolve(
    planting: Planting, ids: dict[str, str], tests: Sequence[str], index: dict[str, int]
) -> list[ODSpec]:
    def ordered(roles: Sequence[str]) -> list[str]:
        return sorted({ids[r] for r in roles}, key=index.__getitem__)

    def key(role_key: str) -> str:
        return group_key(ordered(role_key.split(GROUP_SEPARATOR)))

    out = []
    for tpl in planting.specs:
        victim = ids[tpl.test]
        cleaners = {key(k): ordered(v) for k, v in tpl.cleaners.items()}
        if tpl.cleaned_by_other_modules:
            module = victim.split("::", 1)[0]
            others = [t for t in tests if t.split("::", 1)[0] != module]
            for polluter in tpl.polluters:
                merged = set(cleaners.get(ids[polluter], [])) | set(others)
                cleaners[ids[polluter]] = sorted(merged, key=index.__getitem__)
        out.append(
            ODSpec(
                test=victim,
                kind=tpl.kind,
                polluters=[ids[r] for r in tpl.polluters],
                # a polluter group acts once all members ran, in any order: list them
                # in original order; state-setter groups keep their required order
                polluter_groups=[ordered(g) for g in tpl.polluter_groups],
                cleaners=cleaners,
                state_setters=[ids[r] for r in tpl.state_setters],
                state_setter_groups=[[ids[r] for r in g] for g in tpl.state_setter_groups],
            )
        )
    return out


def generate_suite(
    root: Path, *, n_tests: int, seed: int, plan: SuitePlan | None = None
) -> GroundTruth:
    """Write a pytest project of exactly ``n_tests`` tests under ``root``; return its truth.

    ``root`` must be missing or empty. Without ``plan``, :meth:`SuitePlan.for_size` picks
    what fits. Run it with ``python -m pytest -p no:randomly`` from ``root``.
    """
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        raise UsageError(
            f"{str(root)!r} is not empty; generate_suite() writes a whole project, "
            "so pass a new or empty directory"
        )
    if n_tests < 1:
        raise UsageError(f"n_tests must be >= 1, got {n_tests!r}")
    plan = plan if plan is not None else SuitePlan.for_size(n_tests)
    rng = random.Random(seed)
    plantings = build_plantings(plan, rng)
    planted = sum(len(p.tests) for p in plantings)
    if planted > n_tests:
        raise UsageError(
            f"the plan plants {planted} tests but n_tests is {n_tests!r}; raise n_tests to "
            f"at least {planted} or use SuitePlan.for_size({n_tests})"
        )
    n_modules = max(1, min(round(n_tests / 8), 3 * len(TOPICS)))
    modules = _module_names(n_modules)

    placed: list[Placed] = []
    for k, planting in enumerate(plantings):
        for role, (module, key) in _place(planting, n_modules, rng).items():
            placed.append(Placed(planting.tests[role], module, key, (k, role)))
    occupied = {p.module for p in placed}
    empty = [m for m in range(n_modules) if m not in occupied]
    for i in range(n_tests - planted):
        module = empty[i] if i < len(empty) else rng.randrange(n_modules)
        placed.append(Placed(fillers.filler_test(rng), module, rng.random(), None))

    node_ids = render_project(root, plantings, placed, modules, plan, rng)
    tests = [node_ids[i] for i in sorted(range(len(placed)), key=lambda i: placed[i].sort_key)]
    index = {t: i for i, t in enumerate(tests)}
    truth = GroundTruth(tests=tests, seed=seed, nd_rate=plan.nd_rate, plan=plan.to_json())
    roles: dict[int, dict[str, str]] = {}
    for p, node_id in zip(placed, node_ids):
        if p.origin is not None:
            roles.setdefault(p.origin[0], {})[p.origin[1]] = node_id
    for k, planting in enumerate(plantings):
        role_ids = roles[k]
        specs = _resolve(planting, role_ids, tests, index)
        truth.specs.extend(specs)
        truth.nd_tests += [role_ids[r] for r in planting.nd]
        truth.nio_tests += [role_ids[r] for r in planting.nio]
        truth.always_failing += [role_ids[r] for r in planting.always_failing]
        for test in [s.test for s in specs] + [role_ids[r] for r in planting.nd + planting.nio]:
            truth.channels[test] = planting.channel
            truth.locations[test] = planting.location
    truth.specs.sort(key=lambda s: index[s.test])
    for name in ("nd_tests", "nio_tests", "always_failing"):
        getattr(truth, name).sort(key=index.__getitem__)
    # The layout must give the promised original order; anything else is a generator bug.
    expected = set(truth.always_failing)
    if plan.original_order_fails:
        expected.add(roles[0]["victim"])
    failing = set(truth.failing_in(truth.tests))
    if failing != expected:
        raise AssertionError(
            f"original order of the generated suite fails {sorted(failing)}, "
            f"expected {sorted(expected)} (seed={seed!r}, plan={plan!r})"
        )
    return truth
