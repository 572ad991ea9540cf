"""The types every planted scenario of a generated suite is made of.

A :class:`Planting` is one planted scenario: its tests (:class:`TestCase`) by role, the app
code they exercise, the order constraints that keep the original order passing, and the
ground truth as :class:`SpecTemplate` over roles. Code is written with
:class:`string.Template` placeholders (:func:`fill`) so the generated Python keeps its own
braces: ``$n`` is the planting's noun (``invoice``), ``$N`` its upper case form and ``$C``
its class-name form.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from string import Template

from orderdep.core.odmodel import Kind


@dataclass
class TestCase:
    """One generated test function; ``body`` is unindented source."""

    __test__ = False

    name: str
    body: str
    imports: frozenset[str] = frozenset()
    fixtures: tuple[str, ...] = ()
    # (key, code) module-level code this test needs in its own module (globals, fixtures)
    preludes: tuple[tuple[str, str], ...] = ()


@dataclass
class SpecTemplate:
    """An :class:`~orderdep.core.odmodel.ODSpec` over roles instead of node ids."""

    test: str
    kind: Kind
    polluters: list[str] = field(default_factory=list)
    polluter_groups: list[list[str]] = field(default_factory=list)
    cleaners: dict[str, list[str]] = field(default_factory=dict)  # role or group_key(roles)
    state_setters: list[str] = field(default_factory=list)
    state_setter_groups: list[list[str]] = field(default_factory=list)
    # A module-scoped fixture is rebuilt after any test of another module ran in between.
    cleaned_by_other_modules: bool = False


@dataclass
class Planting:
    """One planted scenario: its tests by role, app code, order constraints, ground truth."""

    scenario: str
    channel: str
    location: str  # where the state lives, for people and repair benchmarks
    tests: dict[str, TestCase]
    specs: list[SpecTemplate] = field(default_factory=list)
    chains: list[list[str]] = field(default_factory=list)  # roles in required original order
    same_module: list[str] = field(default_factory=list)  # roles that share one test module
    app: list[tuple[str, str]] = field(default_factory=list)  # (app module, code snippet)
    conftest: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # extra project files
    nd: list[str] = field(default_factory=list)
    nio: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)


def fill(text: str, noun: str) -> str:
    """``text`` dedented, with ``$n``/``$N``/``$C`` replaced by forms of ``noun``."""
    return Template(textwrap.dedent(text).strip("\n")).substitute(
        n=noun, N=noun.upper(), C=noun[:1].upper() + noun[1:]
    )


def make_case(
    noun: str,
    name: str,
    body: str,
    imports: tuple[str, ...] = (),
    fixtures: tuple[str, ...] = (),
    preludes: tuple[tuple[str, str], ...] = (),
) -> TestCase:
    return TestCase(
        name=fill(name, noun),
        body=fill(body, noun),
        imports=frozenset(fill(i, noun) for i in imports),
        fixtures=tuple(fill(f, noun) for f in fixtures),
        preludes=tuple((fill(k, noun), fill(code, noun)) for k, code in preludes),
    )


def simple_planting(
    channel: str,
    location: str,
    noun: str,
    victim: TestCase,
    polluter: TestCase,
    cleaner: TestCase | None,
    polluter_first: bool,
    same_module: bool = False,
    cleaned_by_other_modules: bool = False,
) -> Planting:
    """A victim, its polluter and optionally one cleaner.

    The victim comes before the polluter in the original order, unless ``polluter_first``
    (then the original order fails: polluter, victim, and the cleaner only after them).
    """
    tests = {"victim": victim, "polluter": polluter}
    if cleaner is not None:
        tests["cleaner"] = cleaner
    spec = SpecTemplate(
        "victim",
        "victim",
        polluters=["polluter"],
        cleaners={"polluter": ["cleaner"]} if cleaner is not None else {},
        cleaned_by_other_modules=cleaned_by_other_modules,
    )
    if polluter_first:
        chain = ["polluter", "victim"] + (["cleaner"] if cleaner is not None else [])
    else:
        chain = ["victim", "polluter"]
    return Planting(
        scenario="channel",
        channel=channel,
        location=fill(location, noun),
        tests=tests,
        specs=[spec],
        chains=[chain],
        same_module=list(tests) if same_module else [],
    )
