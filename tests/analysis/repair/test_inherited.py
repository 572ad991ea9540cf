"""Tests a class inherits from a base class of its file: read and patched where the base
defines them; the subclass's own methods and imported bases are left as they are."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from orderdep.analysis.repair.candidates.sources import read_function
from orderdep.analysis.repair.write.inherited import defining_class, defining_path
from orderdep.analysis.repair.write.patches import Insertion, apply_insertion
from orderdep.errors import UsageError

SOURCE = textwrap.dedent(
    """
    import unittest


    class Checks:
        def test_size(self):
            assert len(self.make()) == 0


    class Base(Checks, unittest.TestCase):
        def test_base(self):
            pass


    class ListTest(Base):
        def make(self):
            return []

        def test_own(self):
            pass


    class Other(unittest.TestCase):
        pass
    """
)


def test_the_class_that_defines_a_method_is_found_through_the_bases() -> None:
    tree = ast.parse(SOURCE)
    assert defining_class(tree, ["ListTest"], "test_own") == ["ListTest"]
    assert defining_class(tree, ["ListTest"], "test_base") == ["Base"]
    assert defining_class(tree, ["ListTest"], "test_size") == ["Checks"]
    assert defining_class(tree, ["Other"], "test_size") is None  # TestCase is not followed
    assert defining_class(tree, ["Missing"], "test_size") is None
    assert defining_path(SOURCE, ["Other"], "test_size") == ["Other"]
    assert defining_path("def (", ["ListTest"], "test_size") == ["ListTest"]


def test_an_inherited_test_is_read_from_its_base(tmp_path: Path) -> None:
    (tmp_path / "test_lists.py").write_text(SOURCE)
    fs = read_function(tmp_path, "test_lists.py::ListTest::test_size")
    assert fs.statements == ["assert len(self.make()) == 0"]
    with pytest.raises(UsageError, match="cannot find the function"):
        read_function(tmp_path, "test_lists.py::Other::test_size")


def test_an_inherited_test_is_patched_in_its_base_and_a_set_up_in_the_subclass() -> None:
    test = "test_lists.py::ListTest::test_size"
    body = apply_insertion(SOURCE, Insertion(test, ("reset()",)))
    assert "    def test_size(self):\n        reset()\n" in body
    assert body.count("reset()") == 1
    set_up = apply_insertion(SOURCE, Insertion(test, ("reset()",), method="make"))
    assert "    def make(self):\n        reset()\n        return []" in set_up
