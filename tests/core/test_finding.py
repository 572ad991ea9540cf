from __future__ import annotations

import pytest

from orderdep.core import report
from orderdep.core.finding import ODFinding, suite_sorted
from orderdep.core.odmodel import ODSpec
from orderdep.errors import ReportError

A, B, C = (f"t.py::test_{c}" for c in "abc")


def test_unclassified_finding_has_no_spec() -> None:
    with pytest.raises(ReportError, match="orderdep classify"):
        ODFinding(test=A).to_spec()


def test_spec_from_json_equivalence() -> None:
    spec = ODSpec(test=A, kind="brittle", state_setter_groups=[[B, C]])
    assert ODFinding.from_json(spec.to_json()).to_spec() == spec


def test_unknown_ids_keep_their_order_after_the_suites() -> None:
    assert suite_sorted(["x", C, "w", A], {A: 0, B: 1, C: 2}) == [A, C, "x", "w"]


def test_the_report_module_names_the_same_finding() -> None:
    assert report.ODFinding is ODFinding
