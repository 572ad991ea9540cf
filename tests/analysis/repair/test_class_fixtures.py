"""An autouse fixture written as a method of a pytest class (``write/class_fixtures.py``)."""

from __future__ import annotations

import textwrap

import pytest

from orderdep.analysis.repair.write.class_fixtures import has_method
from orderdep.analysis.repair.write.patches import Insertion, apply_insertion
from orderdep.errors import UsageError

SOURCE = textwrap.dedent(
    '''
    import os


    class TestA:
        """Orders."""
        def test_one(self):
            assert os.environ.get("X") is None

        class TestInner:
            def test_two(self):
                pass


    def test_three():
        pass
    '''
).lstrip()


def _fixture(where: str) -> Insertion:
    return Insertion(
        f"t.py::{where}::_clean_up_before_each_test",
        ("monkeypatch.delenv('X', raising=False)", "import json"),
        ("monkeypatch",),
        comment="Clean up before each test of this class (test_one needs it).",
        edit="autouse",
    )


def test_the_fixture_goes_first_in_its_class_and_once() -> None:
    out = apply_insertion(SOURCE, _fixture("TestA"))
    assert out.startswith("import json\nimport os\n\nimport pytest\n")
    assert (
        '    """Orders."""\n\n'
        "    @pytest.fixture(autouse=True)\n"
        "    def _clean_up_before_each_test(self, monkeypatch):\n"
        "        # Clean up before each test of this class (test_one needs it).\n"
        '        monkeypatch.delenv("X", raising=False)\n\n'  # the file's quotes
        "    def test_one(self):\n"
    ) in out, out
    assert apply_insertion(out, _fixture("TestA")) == out  # applied twice: once
    assert has_method(out, ["TestA"], "_clean_up_before_each_test")
    assert not has_method(out, ["TestA", "TestInner"], "_clean_up_before_each_test")
    assert "\ndef _clean_up_before_each_test" not in out  # not the module's
    assert not any(line != line.rstrip() for line in out.splitlines())
    compile(out, "t.py", "exec")


def test_a_nested_class_gets_its_own_and_a_missing_class_is_an_error() -> None:
    out = apply_insertion(SOURCE, _fixture("TestA::TestInner"))
    assert (
        "    class TestInner:\n"
        "        @pytest.fixture(autouse=True)\n"
        "        def _clean_up_before_each_test(self, monkeypatch):\n"
    ) in out, out
    with pytest.raises(UsageError, match="cannot find class 'TestB'"):
        apply_insertion(SOURCE, _fixture("TestB"))
