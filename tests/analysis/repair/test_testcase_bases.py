"""Bases named like ``unittest.TestCase`` that a project defines as plain classes (pint's
``QuantityTestCase``): their tests take pytest fixtures, so a patch keeps its
``monkeypatch`` parameter instead of becoming ``self.addCleanup``."""

from __future__ import annotations

from pathlib import Path

from tests.engine.conftest import write_files

from orderdep.analysis.repair.write.patches import Insertion, apply_insertions
from orderdep.analysis.repair.write.testcase_bases import plain_bases

FILES = {
    "pkg/__init__.py": "",
    "pkg/testsuite/__init__.py": """
        import unittest


        class QuantityTestCase:
            @classmethod
            def setup_class(cls):
                cls.registry = {}


        class RealTestCase(unittest.TestCase):
            pass


        class DeeperTestCase(RealTestCase):
            pass
        """,
    "pkg/testsuite/test_units.py": """
        import unittest
        from unittest import TestCase

        from pkg.testsuite import DeeperTestCase, QuantityTestCase
        from . import RealTestCase


        class LocalTestCase:
            pass


        class TestPlain(QuantityTestCase):
            def test_force(self):
                self.registry["force"] = True


        class TestLocal(LocalTestCase):
            def test_a(self):
                pass


        class TestReal(RealTestCase):
            def test_b(self):
                pass


        class TestDeeper(DeeperTestCase):
            def test_c(self):
                pass


        class TestImported(TestCase):
            def test_d(self):
                pass


        class TestDotted(unittest.TestCase):
            def test_e(self):
                pass
        """,
}
FILE = "pkg/testsuite/test_units.py"
STATEMENT = "monkeypatch.setattr(TestPlain, 'registry', TestPlain.registry)"


def test_only_the_bases_without_a_testcase_behind_them_are_plain(tmp_path: Path) -> None:
    root = write_files(tmp_path / "p", FILES)
    assert plain_bases(root, FILE) == {"QuantityTestCase", "LocalTestCase"}


def test_a_src_layout_module_is_followed_too(tmp_path: Path) -> None:
    files = {f"src/{path}": text for path, text in FILES.items()}
    root = write_files(tmp_path / "p", files)
    assert plain_bases(root, f"src/{FILE}") == {"QuantityTestCase", "LocalTestCase"}


def test_a_test_of_a_plain_base_keeps_its_monkeypatch(tmp_path: Path) -> None:
    root = write_files(tmp_path / "p", FILES)
    ins = Insertion(f"{FILE}::TestPlain::test_force", (STATEMENT,), ("monkeypatch",), None, "Undo")
    ((_, new),) = apply_insertions(root, [ins]).values()
    assert "def test_force(self, monkeypatch):" in new
    assert "addCleanup" not in new


def test_a_test_of_a_real_testcase_gets_addcleanup(tmp_path: Path) -> None:
    root = write_files(tmp_path / "p", FILES)
    for cls, test in (("TestDeeper", "test_c"), ("TestReal", "test_b")):
        ins = Insertion(f"{FILE}::{cls}::{test}", (STATEMENT,), ("monkeypatch",), None, "Undo")
        ((_, new),) = apply_insertions(root, [ins]).values()
        assert f"    def {test}(self):\n" in new and "self.addCleanup(" in new, new
