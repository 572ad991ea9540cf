"""A polluter's victims in one class, each failing only as the first to read the state
after it: ``detect`` runs the polluter before the found victim's siblings (real pytest
processes through ``main(argv)``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from orderdep.core.report import load_report
from orderdep.shells.cli import main

LOOKUP = '''
    _table = {}


    def clear():
        _table.clear()


    def lookup(name):
        """The first lookup after a clear sees an empty table and fills it."""
        if not _table:
            _table.update(int=int, str=str)
            return None
        return _table[name]
'''

TESTS = """
    import lookup


    class TestLookup:
        def test_int(self):
            assert lookup.lookup("int") is int

        def test_str(self):
            assert lookup.lookup("str") is str

        def test_int_again(self):
            assert lookup.lookup("int") is int


    def test_fill():
        lookup.lookup("int")
"""


def test_detect_finds_the_siblings_a_search_order_hides(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    conftest = """
        import os
        import sys

        sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
        import lookup

        lookup.lookup("int")  # the table is filled when the session starts
    """
    for name, text in {
        "pytest.ini": "[pytest]\n",
        "lookup.py": LOOKUP,
        "tests/conftest.py": conftest,
        "tests/test_clear.py": "import lookup\n\n\ndef test_clear():\n    lookup.clear()\n",
        "tests/test_lookup.py": TESTS,
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    # the original order runs test_clear first: only test_int fails after it
    assert main(["detect", str(root), "--strategy", "original", "--seed", "3"]) == 1
    report = load_report(root / ".orderdep" / "report.json")
    found = {f.test: f.failing_order for f in report.od_tests}
    clear = "tests/test_clear.py::test_clear"
    names = ("test_int", "test_str", "test_int_again")
    siblings = [f"tests/test_lookup.py::TestLookup::{n}" for n in names]
    assert found == {t: [clear, t] for t in siblings}
