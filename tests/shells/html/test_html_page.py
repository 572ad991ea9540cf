"""The HTML page: valid, self-contained, and complete (every OD test, relation and command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from html_helpers import (
    big_report,
    check_page,
    expected_edges,
    graph_edges,
    runs_order,
    synth_report,
)

from orderdep.analysis.regression.evaluate import AlgorithmResult, Evaluation
from orderdep.core.report import ODFinding, Report, save_report
from orderdep.shells.cli import main
from orderdep.shells.fixes_file import FIXES_FILE, SCHEMA
from orderdep.shells.html import gather, render_html
from orderdep.shells.options import EVALUATION_FILE
from orderdep.shells.patch_files import PATCH_DIR, patch_name


def render(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> str:
    assert main(["report", str(root), *extra]) == 0
    out = capsys.readouterr().out.strip()
    target = root / ".orderdep" / "report.html"
    assert out.startswith(f"wrote {target} (")
    return target.read_text(encoding="utf-8")


def test_generated_suite_every_od_test_relation_and_reproduce_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "shop"
    report, truth = synth_report(root)
    assert {f.test for f in report.od_tests} == set(truth.od_tests)
    text = render(capsys, root)
    page = check_page(text)
    table_rows = [a for t, a in page.elements if t == "tr" and a.get("data-kind")]
    assert len(table_rows) == len(report.od_tests)
    assert {a["data-kind"] for a in table_rows} == {"victim", "brittle"}
    assert report.nio_tests and report.nd_tests  # the plan plants one of each
    details = [a for t, a in page.elements if t == "details"]
    assert len(details) == len(report.od_tests)
    for f in report.od_tests:
        assert f.test in text
        # the failing order is reproduced by one of the printed commands
        assert any(runs_order(c, root, f.failing_order) for c in page.commands), f.test
    for test in report.nio_tests:
        assert any(runs_order(c, root, [test, test]) for c in page.commands)
    assert expected_edges(report) <= graph_edges(page)
    # the cards count what the report holds
    assert f'<div class="value">{len(report.tests)}</div>' in text
    assert f'<div class="value">{len(report.od_tests)}</div>' in text
    # the report itself travels inside the page
    start = text.index('<script type="application/json" id="orderdep-report">') + 53
    embedded = json.loads(text[start : text.index("</script>", start)])
    assert embedded == json.loads(report.dumps())


def test_200_plus_nodes_render_with_every_relation(tmp_path: Path) -> None:
    root = tmp_path / "big"
    report = big_report(str(root.resolve()))
    save_report(root / ".orderdep" / "report.json", report)
    text = render_html(gather(root))
    page = check_page(text)
    nodes = [a for t, a in page.elements if t == "g" and "node" in (a.get("class") or "")]
    assert len(nodes) >= 200
    assert expected_edges(report) == graph_edges(page)
    for f in report.od_tests:
        assert any(runs_order(c, root, f.failing_order) for c in page.commands)
    # sortable columns: numbers sort by value, an unknown rate sorts first
    assert 'data-sort="-1"' in text and 'data-type="number"' in text


def test_ids_that_look_like_markup_are_escaped(tmp_path: Path) -> None:
    root = tmp_path / "odd"
    v = 'tests/test_x.py::test_v[<script>alert("x")</script>&amp;]'
    p = "tests/test_x.py::test_p[it's]"
    report = Report(
        project=str(root.resolve()),
        tests=[v, p],
        od_tests=[ODFinding(v, "victim", [p, v], [v], polluters=[p])],
    )
    save_report(root / ".orderdep" / "report.json", report)
    text = render_html(gather(root))
    page = check_page(text)
    assert "<script>alert" not in text
    assert [a for t, a in page.elements if t == "script"] == [
        {"type": "application/json", "id": "orderdep-report"},
        {},
    ]
    assert (p, v, "pollutes") in graph_edges(page)


def test_patches_fixes_pradet_and_evaluation_are_shown(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    v, b, p, s = (f"tests/test_a.py::test_{n}" for n in ("v", "b", "p", "s"))
    victim = ODFinding(v, "victim", [p, v], [v], polluters=[p])
    victim.extras["pradet"] = {
        "dependencies": [{"dependee": p, "dependent": v, "roots": ["app.CART"], "kind": "victim",
                          "found_by": "refinement", "alone": True}]
    }  # fmt: skip
    brittle = ODFinding(b, "brittle", [b], [s, b], state_setters=[s])
    report = Report(project=str(root.resolve()), tests=[v, b, p, s], od_tests=[victim, brittle])
    report.extras["pradet"] = {
        "reference": "original",
        "collections": [{"source": "reference", "tests": 4, "data_dependencies": 1,
                         "failing": [], "wall_seconds": 0.5}],
        "data_dependencies": [{"dependent": v, "dependee": p, "roots": ["app.CART"]}],
        "roots": {"app.CART": {"writers": 1, "value": "list of 1: ['apple']"}},
        "manifest": [{}], "removed": 0, "untestable": [], "flaky": [],
        "executions": {"collection": 4, "total": 9},
    }  # fmt: skip
    save_report(root / ".orderdep" / "report.json", report)
    diff = (
        "diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n"
        "+++ b/tests/test_a.py\n@@ -1,3 +1,4 @@\n def test_v():\n"
        "+    app.CART.clear()  # reset\n     assert app.CART == []\n-    pass\n"
    )
    patches = root / FIXES_FILE.parent / PATCH_DIR  # beside the report
    patches.mkdir(parents=True)
    (patches / patch_name(v)).write_text(diff)
    fixes = {
        v: {"kind": "victim", "fixed": True, "strategy": "restore", "description": "put it back",
            "size": 1, "verification": "verified in 3 orders", "polluted": ["app.CART"],
            "patch": f"patches/{patch_name(v)}", "notes": []},
        b: {"kind": "brittle", "fixed": False, "strategy": None, "description": None, "size": 0,
            "verification": None, "polluted": [], "patch": None,
            "notes": ["no candidate made it pass in its failing order"]},
    }  # fmt: skip
    (root / FIXES_FILE).write_text(json.dumps({"schema": SCHEMA, "fixes": fixes}))
    row = AlgorithmResult("T1", "prioritization", schedules=1, changed=1, added=2,
                          unenhanced_failures=[v], unenhanced_seconds=1.0, enhanced_seconds=1.1)  # fmt: skip
    evaluation = Evaluation([v, b, p, s], [], [row], [2], ["change 1"], orders_run=2)
    (root / EVALUATION_FILE).write_text(json.dumps(evaluation.to_json()))

    text = render_html(gather(root))
    page = check_page(text)
    # the patch, highlighted: added and removed lines, Python tokens
    assert len(page.by_class("span", "add")) == 1 and len(page.by_class("span", "del")) == 1
    assert 'class="c1"># reset</span>' in text  # a Pygments comment token
    assert "verified in 3 orders" in text and "put it back" in text
    assert "no candidate made it pass in its failing order" in text
    assert ">none verified</td>" in text and ">none needed</td>" not in text
    # a test that passed in its failing order (an applied patch fixed it) needs none
    fixes[b] = {**fixes[b], "reproduced": False}
    (root / FIXES_FILE).write_text(json.dumps({"schema": SCHEMA, "fixes": fixes}))
    assert ">none needed</td>" in render_html(gather(root))
    # PRADET: the root is a node, in the table and in its section
    assert (p, "app.CART", "writes") in graph_edges(page)
    assert ("app.CART", v, "reads") in graph_edges(page)
    assert "list of 1: [&#39;apple&#39;]" in text
    assert 'id="pradet-section"' in text
    # the regression evaluation table
    assert 'id="evaluation-table"' in text
    assert "<td>T1</td><td>prioritization</td>" in text
    assert ">100.0%</td>" in text and ">+10.0%</td>" in text  # reduction and slowdown


def test_flake_rates_that_are_upper_bounds_are_marked(tmp_path: Path) -> None:
    root = tmp_path / "bound"
    v, w, p, c = (f"tests/test_x.py::test_{n}" for n in ("v", "w", "p", "c"))
    rates = {"all": 0.25, "grouped": None, "reverse": None}
    bounded = ODFinding(v, "victim", [p, v], [v], polluters=[p], cleaners={p: [c]})
    bounded.flake_rate = dict(rates)
    bounded.extras["flake_rate_is_upper_bound"] = True
    exact = ODFinding(w, "victim", [p, w], [w], polluters=[p])
    exact.flake_rate = {**rates, "all": 0.5}
    report = Report(project=str(root.resolve()), tests=[v, w, p, c], od_tests=[bounded, exact])
    save_report(root / ".orderdep" / "report.json", report)
    text = render_html(gather(root))
    check_page(text)
    assert text.count("&le;&nbsp;25.0%") == 1
    assert "&le;&nbsp;50.0%" not in text and ">50.0%<" in text


def test_a_report_without_classification_says_why_its_graph_has_no_partners(
    tmp_path: Path,
) -> None:
    root = tmp_path / "plain"
    v, w = "tests/test_x.py::test_v", "tests/test_x.py::test_w"
    report = Report(
        project=str(root.resolve()),
        tests=[w, v],
        od_tests=[ODFinding(v, None, [w, v], [v])],
    )
    save_report(root / ".orderdep" / "report.json", report)
    text = render_html(gather(root))
    check_page(text)
    assert "1 of 1 OD test(s) not classified yet: the graph shows no partners" in text
    classified = tmp_path / "classified"
    report.od_tests = [ODFinding(v, "victim", [w, v], [v], polluters=[w])]
    save_report(classified / ".orderdep" / "report.json", report)
    assert "not classified yet" not in render_html(gather(classified))


def test_the_od_table_fits_the_page_its_columns_wrap_long_ids() -> None:
    """At 1,400 px the polluted-state column was cut off: the table's columns are fixed
    and long ids wrap inside them."""
    from importlib import resources

    css = (resources.files("orderdep.shells.html") / "static" / "report.css").read_text()
    assert "#od-table { table-layout: fixed; }" in css
    assert "#od-table td { overflow-wrap: anywhere;" in css
