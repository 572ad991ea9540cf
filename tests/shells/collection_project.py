"""A project whose tests need another module's import-time code: two brittles that fail
as ``pytest FILE`` (a registry filled at import, a ``sys.path`` insert) and a victim of a
module that stubs ``sys.modules`` at import. Shared by the collection check's and the
module fix's end-to-end tests."""

from __future__ import annotations

from pathlib import Path

from clitools import write_files

NEEDS_GROUP = "tests/test_b_uses.py::test_needs_group"
TOOL = "tests/test_c_import.py::test_tool"
SETTER = "tests/test_a_setup.py::test_first"
REAL = "tests/test_e_real.py::test_real"
STUB = "tests/test_d_stub.py::test_stubbed"


def collection_project(root: Path) -> Path:
    return write_files(
        root,
        {
            "pytest.ini": "[pytest]\npythonpath = .\ntestpaths = tests\n",
            "registry.py": "GROUPS = {}\n",
            "tests/helpers/tool.py": "VALUE = 3\n",
            "tests/test_a_setup.py": """
                import os
                import sys

                import registry

                sys.path.insert(0, os.path.join(os.path.dirname(__file__), "helpers"))
                registry.GROUPS["csv"] = object()


                def test_first():
                    pass
            """,
            "tests/test_b_uses.py": """
                import registry


                def test_plain():
                    pass


                def test_needs_group():
                    assert "csv" in registry.GROUPS
            """,
            "tests/test_c_import.py": """
                import tool


                def test_tool():
                    assert tool.VALUE == 3
            """,
            "fancy.py": "REAL = True\n",
            "tests/test_d_stub.py": """
                import sys
                import types

                stub = types.ModuleType("fancy")
                stub.REAL = False
                sys.modules["fancy"] = stub  # a stub for every test after this import


                def test_stubbed():
                    import fancy

                    assert not fancy.REAL
            """,
            "tests/test_e_real.py": """
                def test_real():
                    import fancy

                    assert fancy.REAL
            """,
        },
    )
