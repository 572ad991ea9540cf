from __future__ import annotations

from orderdep.core.suite import Suite


def test_the_id_root_is_kept_through_json_and_left_out_when_empty() -> None:
    suite = Suite.from_ids(["unit/test_a.py::test_x"], rootdir="/p")
    suite.id_root = "tests"
    data = suite.to_json()
    assert data["id_root"] == "tests"
    assert Suite.from_json(data).id_root == "tests"
    assert "id_root" not in Suite.from_ids(["t.py::test_x"]).to_json()
