"""The rootdir of a collection, relative to the tree pytest ran in (``Suite.id_root``)."""

from __future__ import annotations

from pathlib import Path

from orderdep.engine.collected import suite_from_events
from orderdep.engine.config import EngineConfig

TEST = {"id": "unit/test_a.py::test_x", "module": "unit/test_a.py", "file": "unit/test_a.py"}


def _suite(tmp_path: Path, rootdir: Path) -> str:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True, exist_ok=True)
    (tmp_path / "proj").mkdir(exist_ok=True)
    events = [{"event": "suite", "rootdir": str(rootdir), "tests": [TEST]}]
    return suite_from_events(events, EngineConfig(tmp_path / "proj"), "", tree).id_root


def test_a_rootdir_inside_the_tree_is_where_the_ids_start(tmp_path: Path) -> None:
    assert _suite(tmp_path, tmp_path / "tree" / "tests") == "tests"


def test_the_tree_itself_or_a_rootdir_outside_it_gives_none(tmp_path: Path) -> None:
    assert _suite(tmp_path, tmp_path / "tree") == ""
    assert _suite(tmp_path, tmp_path) == ""
