"""``orderdep why`` from what is already known (a report, an earlier ``why``): one run of
the minimal failing order instead of a search, and a search when the knowledge is stale."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_cli_why import order_file
from why_project import CACHE_EMPTY, LOGIN, MODE_IS_PROD, NAMES, OPEN, SET_MODE

if TYPE_CHECKING:
    from conftest import CliRunner

FAST = ("--no-check", "--no-fix", "--no-state")


pytestmark = pytest.mark.usefixtures("no_hypothesis_plugin")


def write_report(project: Path, findings: list[dict[str, object]]) -> None:
    path = project / ".orderdep" / "report.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tests": [], "od_tests": findings}))


def test_a_second_why_answers_from_the_first_with_one_run(shop: Path, cli: CliRunner) -> None:
    order = order_file(shop, [*NAMES, LOGIN, OPEN, CACHE_EMPTY])
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST)
    assert code == 0 and f"victim of: {LOGIN}" in out and "known from" not in out
    assert (shop / ".orderdep" / "why-known.json").exists()
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST)
    assert code == 0, err
    assert f"victim of: {LOGIN}" in out
    assert "known from an earlier `orderdep why`" in out
    assert "1 orders run" in err
    assert f"reproduce the failure: orderdep run {shop}" in out


def test_the_report_answers_a_victim_and_a_brittle(shop: Path, cli: CliRunner) -> None:
    write_report(shop, [
        {"test": CACHE_EMPTY, "kind": "victim", "polluters": [LOGIN]},
        {"test": MODE_IS_PROD, "kind": "brittle", "state_setters": [SET_MODE]},
    ])  # fmt: skip
    order = order_file(shop, [LOGIN, CACHE_EMPTY])
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST)
    assert code == 0 and "known from the report" in out and "1 orders run" in err
    order = order_file(shop, [LOGIN, MODE_IS_PROD])
    code, out, err = cli("why", MODE_IS_PROD, shop, "--order-file", order, *FAST)
    assert code == 0, err
    assert f"passes after its state-setter: {SET_MODE}" in out and "known from the report" in out


def test_stale_knowledge_falls_back_to_the_search(shop: Path, cli: CliRunner) -> None:
    # the report names a test that does not pollute (any more): one run says so
    write_report(shop, [{"test": CACHE_EMPTY, "kind": "victim", "polluters": [NAMES[0]]}])
    order = order_file(shop, [NAMES[0], LOGIN, CACHE_EMPTY])
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST)
    assert code == 0, err
    assert f"victim of: {LOGIN}" in out and "known from" not in out


def test_no_known_searches(shop: Path, cli: CliRunner) -> None:
    write_report(shop, [{"test": CACHE_EMPTY, "kind": "victim", "polluters": [LOGIN]}])
    order = order_file(shop, [LOGIN, CACHE_EMPTY])
    code, out, _ = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST, "--no-known")
    assert code == 0 and "known from" not in out


def test_report_names_the_report_that_answers(shop: Path, cli: CliRunner, tmp_path: Path) -> None:
    elsewhere = tmp_path / "ci-report.json"
    elsewhere.write_text(json.dumps({"tests": [], "od_tests": [
        {"test": CACHE_EMPTY, "kind": "victim", "polluters": [LOGIN]}]}))  # fmt: skip
    order = order_file(shop, [LOGIN, CACHE_EMPTY])
    code, out, err = cli("why", CACHE_EMPTY, shop, "--order-file", order, *FAST,
                         "--report", elsewhere)  # fmt: skip
    assert code == 0 and "known from the report" in out and "ci-report.json" in out
    assert "1 orders run" in err
