"""Helpers for the HTML report's tests: reports to render and a strict look at the page."""

from __future__ import annotations

import re
import shlex
from html.parser import HTMLParser
from pathlib import Path
from typing import Optional

from orderdep.analysis.classify import classify
from orderdep.analysis.detect import detect
from orderdep.core.odmodel import group_key
from orderdep.core.report import ODFinding, Report, RunStats, save_report
from orderdep.synth.generate import generate_suite
from orderdep.synth.model import ModelExecutor
from orderdep.synth.truth import GroundTruth

# elements without an end tag in HTML
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
URL_ATTRS = {"src", "href", "action", "data", "poster", "srcset", "xlink:href"}


class Page(HTMLParser):
    """Parses a page and records what the tests look at; ``problems`` lists what is wrong."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.ids: dict[str, int] = {}
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.elements: list[tuple[str, dict[str, Optional[str]]]] = []
        self.texts: dict[str, list[str]] = {}  # class of the innermost element -> texts
        self.commands: list[str] = []
        self._command: Optional[list[str]] = None
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"not closed: {self.stack}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        self._element(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)
        classes = (dict(attrs).get("class") or "").split()
        if tag == "code" and "cmd" in classes:
            self._command = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        self._element(tag, attrs)  # <path .../> inside SVG

    def _element(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        values = dict(attrs)
        self.elements.append((tag, values))
        if values.get("id"):
            self.ids[str(values["id"])] = self.ids.get(str(values["id"]), 0) + 1
        for name, value in attrs:
            if name in URL_ATTRS and value is not None:
                self.urls.append((tag, name, value))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "code" and self._command is not None:
            self.commands.append("".join(self._command))
            self._command = None

    def handle_data(self, data: str) -> None:
        if self._command is not None:
            self._command.append(data)

    def by_class(self, tag: str, cls: str) -> list[dict[str, Optional[str]]]:
        return [a for t, a in self.elements if t == tag and cls in (a.get("class") or "").split()]


def check_page(text: str) -> Page:
    """Parse ``text``; assert it is well-formed, self-contained HTML with unique ids."""
    assert text.startswith("<!DOCTYPE html>")
    page = Page(text)
    assert page.problems == []
    assert [i for i, n in page.ids.items() if n > 1] == []
    for tag, name, value in page.urls:
        assert not re.match(r"\s*(https?:)?//", value), (tag, name, value)
    assert not [a for t, a in page.elements if t == "script" and a.get("src")]
    assert not [a for t, a in page.elements if t == "link" and a.get("rel") == "stylesheet"]
    assert "@import" not in text and "url(http" not in text
    return page


def runs_order(command: str, project: Path, order: list[str]) -> bool:
    """Whether ``command`` (as printed) is ``orderdep run`` of exactly ``order``."""
    parts = shlex.split(command)
    if parts[:3] != ["orderdep", "run", str(project)]:
        return False
    rest = parts[3:]
    if rest[:1] == ["--order-file"]:
        lines = Path(rest[1]).read_text().splitlines()
        return [t for t in lines if t and not t.startswith("#")] == order
    return [t for t in rest if t != "--"] == order


def synth_report(root: Path, *, n_tests: int = 63, seed: int = 3) -> tuple[Report, GroundTruth]:
    """A generated project with every planted scenario, its report detected and classified
    by the model executor (no test runs), saved as the project's report."""
    truth = generate_suite(root, n_tests=n_tests, seed=seed)
    executor = ModelExecutor(truth.suite(), truth.model_specs(), nd_tests=truth.nd_tests, seed=seed)
    report = detect(executor, strategies=["tuscan", "nio"], seed=seed)
    report = classify(executor, report, alone_runs=3)
    report.project = str(root.resolve())
    save_report(root / ".orderdep" / "report.json", report)
    return report, truth


def big_report(project: str, victims: int = 60, brittles: int = 20) -> Report:
    """A report whose graph has 200+ nodes: victims with a polluter, a cleaner and (every
    fourth) a polluter group; brittles with a state-setter or (every third) a group."""
    tests: list[str] = []
    findings: list[ODFinding] = []

    def tid(module: int, name: str) -> str:
        test = f"tests/pkg_{module % 7}/test_mod_{module}.py::TestThing::test_{name}"
        tests.append(test)
        return test

    for i in range(victims):
        v, p, c = tid(i, f"victim_{i}"), tid(i, f"polluter_{i}"), tid(i, f"cleaner_{i}")
        f = ODFinding(v, "victim", failing_order=[p, v], passing_order=[v], polluters=[p])
        f.cleaners[p] = [c]
        if i % 4 == 0:
            group = [tid(i, f"group_a_{i}"), tid(i, f"group_b_{i}")]
            f.polluter_groups.append(group)
            f.cleaners[group_key(group)] = [c]
        f.flake_rate = {"all": (i % 10) / 10, "grouped": None, "reverse": 0.5}
        findings.append(f)
    for j in range(brittles):
        b = tid(100 + j, f"brittle_{j}")
        f = ODFinding(b, "brittle", failing_order=[b])
        if j % 3 == 0:
            f.state_setter_groups.append([tid(100 + j, f"setup_{j}_{k}") for k in range(3)])
            f.passing_order = [*f.state_setter_groups[0], b]
        else:
            f.state_setters.append(tid(100 + j, f"setup_{j}"))
            f.passing_order = [f.state_setters[0], b]
        findings.append(f)
    stats = RunStats(orders_run=1234, test_executions=56789, wall_seconds=321.5, seed=42)
    stats.strategies = ["original", "tuscan"]
    report = Report(project=project, tests=tests, od_tests=findings, stats=stats)
    report.check_consistent()
    return report


def graph_edges(page: Page) -> set[tuple[str, str, str]]:
    """(source, target, relation) of the drawn graph, nodes named by their full key."""
    names = {
        str(a["id"]): str(a["data-key"])
        for t, a in page.elements
        if t == "g" and "node" in (a.get("class") or "").split()
    }
    return {
        (names[str(a["data-s"])], names[str(a["data-t"])], str(a["data-relation"]))
        for a in page.by_class("path", "edge")
    }


def group_name(members: list[str], what: str = "polluter group") -> str:
    """The full key of a group's node in the graph."""
    return f"{what} of {len(members)}, in this order: " + " -> ".join(members)


def expected_edges(report: Report) -> set[tuple[str, str, str]]:
    """Every relation of the report's findings, as :func:`graph_edges` names them."""
    out: set[tuple[str, str, str]] = set()
    for f in report.od_tests:
        out |= {(p, f.test, "pollutes") for p in f.polluters}
        out |= {(s, f.test, "sets") for s in f.state_setters}
        out |= {(c, f.test, "cleans") for cs in f.cleaners.values() for c in cs}
        for groups, what, relation in (
            (f.polluter_groups, "polluter group", "pollutes"),
            (f.state_setter_groups, "state-setter group", "sets"),
        ):
            for g in groups:
                name = group_name(g, what)
                out.add((name, f.test, relation))
                out |= {(m, name, "member") for m in g}
    return out
