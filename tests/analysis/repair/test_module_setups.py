"""Candidates for a test that fails as ``pytest FILE`` (repair.candidates.module_setups),
on file texts written here."""

from __future__ import annotations

import textwrap
from pathlib import Path

from orderdep.analysis.repair.candidates.module_setups import (
    import_time_code,
    module_setups,
)

SETTER = textwrap.dedent(
    '''
    """Tests of the writer."""
    import sys
    from pathlib import Path

    import pytest

    SCRIPTS = Path(__file__).resolve().parent / "scripts"
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))

    from writer import write  # noqa: E402

    UNUSED = 3


    def test_write():
        assert write()


    if __name__ == "__main__":
        pytest.main()
    '''
)


def test_the_statements_that_act_at_import_come_with_what_they_read() -> None:
    code = import_time_code(SETTER, "import sys\n\n\ndef test_other():\n    pass\n")
    assert code == [
        "from pathlib import Path",
        'SCRIPTS = Path(__file__).resolve().parent / "scripts"',
        "if str(SCRIPTS) not in sys.path:\n    sys.path.insert(0, str(SCRIPTS))",
    ]  # `import sys` the own file has; the docstring, UNUSED and the main guard stay


def test_what_the_own_file_does_already_is_not_offered_again() -> None:
    own = "import sys\nsys.path.insert(0, 'x')\n"
    assert import_time_code("import sys\nsys.path.insert(0, 'x')\n", own) == []


def test_an_assignment_to_an_item_acts_and_one_to_a_name_does_not() -> None:
    setter = "import registry\n\nKNOWN = 1\nregistry.GROUPS['csv'] = KNOWN\n"
    assert import_time_code(setter, "") == [
        "import registry",
        "KNOWN = 1",
        "registry.GROUPS['csv'] = KNOWN",
    ]


def test_statements_that_read_a_function_of_the_module_are_not_copied() -> None:
    setter = "import sys\n\n\ndef where():\n    return 'x'\n\n\nsys.path.insert(0, where())\n"
    assert import_time_code(setter, "") == []


def test_the_import_names_the_module_behind_its_packages(tmp_path: Path) -> None:
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    for rel in ("tests/__init__.py", "tests/unit/__init__.py", "tests/unit/test_a.py"):
        (tmp_path / rel).write_text("")
    (tmp_path / "tests" / "unit" / "test_b.py").write_text("def test_b():\n    pass\n")
    setups = module_setups(tmp_path, "tests/unit/test_b.py", ["tests/unit/test_a.py"])
    assert [s.statements for s in setups] == [("import tests.unit.test_a  # noqa: F401",)]


def test_each_statement_alone_then_all_then_the_import(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_setup.py").write_text(
        "import sys\n\nimport registry\n\nsys.path.insert(0, 'helpers')\n"
        "registry.GROUPS['csv'] = object()\n\n\ndef test_first():\n    pass\n"
    )
    (tmp_path / "tests" / "test_uses.py").write_text("def test_uses():\n    pass\n")
    setups = module_setups(tmp_path, "tests/test_uses.py", ["tests/test_setup.py"])
    assert [s.statements for s in setups] == [
        ("import sys", "sys.path.insert(0, 'helpers')"),
        ("import registry", "registry.GROUPS['csv'] = object()"),
        (
            "import sys",
            "import registry",
            "sys.path.insert(0, 'helpers')",
            "registry.GROUPS['csv'] = object()",
        ),
        ("import test_setup  # noqa: F401",),
    ]
    assert setups[0].description == "what tests/test_setup.py does at import"
    assert setups[-1].description == "import tests/test_setup.py (for what it does at import)"


def test_a_setter_in_the_own_file_gives_nothing(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("import sys\nsys.path.insert(0, 'x')\n")
    assert module_setups(tmp_path, "test_a.py", ["test_a.py"]) == []
