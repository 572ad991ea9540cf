"""The polluters of one module or pytest class get their shared clean-up once, in an
autouse fixture there, instead of a copy of the block in each."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from orderdep.analysis.repair.candidates.candidates import Candidate, root_cause_rank
from orderdep.analysis.repair.candidates.merged_polluters import (
    MERGED_FIXTURE,
    merged,
    with_merged,
)
from orderdep.analysis.repair.write.patches import Insertion, apply_insertions

REGISTRY = """\
    registry = {}


    def register(name, cls):
        registry[name] = cls
    """

BLOCK = (
    "import copy",
    "import shapes",
    "monkeypatch.setattr(shapes, 'registry', copy.deepcopy(shapes.registry))",
)


def _project(tmp_path: Path, tests: str) -> Path:
    (tmp_path / "shapes.py").write_text(textwrap.dedent(REGISTRY))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_shapes.py").write_text(textwrap.dedent(tests))
    (tmp_path / "tests/test_count.py").write_text(
        "import shapes\n\n\ndef test_none_registered():\n    assert shapes.registry == {}\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return tmp_path


def _polluter_fix(*tests: str) -> Candidate:
    insertions = [Insertion(t, BLOCK, ("monkeypatch",)) for t in tests]
    return Candidate("polluter", "makes polluter(s) undo their change", insertions)


PYTEST_CLASS = """\
    import shapes


    class TestShapes:
        def test_square(self):
            shapes.register("square", object)

        def test_circle(self):
            shapes.register("circle", object)
    """


def test_polluters_of_one_pytest_class_share_a_fixture_method_that_holds_under_pytest(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, PYTEST_CLASS)
    cls = "tests/test_shapes.py::TestShapes::"
    cand = _polluter_fix(cls + "test_square", cls + "test_circle")
    one = merged(cand, root)
    assert one is not None
    (ins,) = one.insertions
    assert (ins.test, ins.edit, ins.statements) == (cls + MERGED_FIXTURE, "autouse", BLOCK)
    assert one.description.endswith("(once, in an autouse fixture of class TestShapes)")
    assert root_cause_rank(one) == 0  # still the polluters' own clean-up, in one place
    changes = apply_insertions(root, one.insertions)
    (source,) = changes.values()
    new = source[1]
    assert new.count("monkeypatch.setattr(shapes, ") == 1, new
    assert f"    def {MERGED_FIXTURE}(self, monkeypatch):" in new, new
    (root / "tests/test_shapes.py").write_text(new)
    # each polluter, then the victim: plain pytest passes them all
    victim = "tests/test_count.py::test_none_registered"
    for polluter in (cls + "test_square", cls + "test_circle"):
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p",
             "no:cacheprovider", polluter, victim],
            cwd=root, capture_output=True, text=True,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr


def test_module_level_polluters_share_an_autouse_fixture_of_their_module(tmp_path: Path) -> None:
    root = _project(tmp_path, "import shapes\n\n\ndef test_a():\n    pass\n\n\ndef test_b():\n"
                              "    pass\n\n\ndef test_c():\n    pass\n")  # fmt: skip
    mod = "tests/test_shapes.py::"
    cand = _polluter_fix(mod + "test_a", mod + "test_b", "tests/test_other.py::test_c")
    (root / "tests/test_other.py").write_text("def test_c():\n    pass\n")
    one = merged(cand, root)
    assert one is not None
    assert [(i.test, i.edit) for i in one.insertions] == [
        (mod + MERGED_FIXTURE, "autouse"),
        ("tests/test_other.py::test_c", "insert"),  # alone in its module: kept in place
    ]
    assert with_merged([cand], root) == [one, cand]


def test_no_merge_for_one_function_its_instances_testcases_or_self(tmp_path: Path) -> None:
    root = _project(tmp_path, PYTEST_CLASS)
    cls = "tests/test_shapes.py::TestShapes::"
    # two instances of one parametrized polluter are one function
    assert merged(_polluter_fix(cls + "test_square[1]", cls + "test_square[2]"), root) is None
    assert with_merged([_polluter_fix(cls + "test_square")], root) == [
        _polluter_fix(cls + "test_square")
    ]
    testcase = "import unittest\n\n\n" + textwrap.dedent(PYTEST_CLASS).replace(
        "class TestShapes:", "class TestShapes(unittest.TestCase):"
    )
    (root / "tests/test_shapes.py").write_text(testcase)
    # a TestCase shares a block through its setUp instead
    assert merged(_polluter_fix(cls + "test_square", cls + "test_circle"), root) is None
    (root / "tests/test_funcs.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n"
                                              "    pass\n")  # fmt: skip
    uses_self = Candidate(
        "polluter", "d",
        [Insertion(f"tests/test_funcs.py::{n}", ("self.x = 1",)) for n in ("test_a", "test_b")],
    )  # fmt: skip
    assert merged(uses_self, root) is None
