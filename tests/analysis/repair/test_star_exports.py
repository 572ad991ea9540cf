"""Names a cleaner's test module has from a star import travel with its statements."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.repair.corpus_helpers import corpus_fixture
from tests.engine.conftest import write_files

from orderdep.analysis.repair.candidates.sources import read_function, transplant
from orderdep.analysis.repair.candidates.star_exports import module_file, public_names, star_names
from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

FILES = {
    "pkg/__init__.py": "",
    "pkg/io.py": """
        import json

        def save_group(group, name):
            pass

        def _private():
            pass

        LIMIT = 3
        """,
    "pkg/load.py": """
        __all__ = ["load_group"]

        def load_group(name):
            pass

        def helper():
            pass
        """,
    "tests/__init__.py": "",
    "tests/test_io.py": """
        from pkg.io import *

        def test_save(group):
            name = "all"
            save_group(group, name)
        """,
    "tests/test_load.py": """
        from pkg.load import *

        def test_load():
            assert load_group("all")
        """,
    "tests/test_again.py": """
        from pkg.io import *

        def test_again():
            pass
        """,
}


def test_public_names_follow_all_or_the_leading_underscore() -> None:
    assert public_names("import json\ndef f(): pass\ndef _g(): pass\nX = 1\n") == {"json", "f", "X"}
    assert public_names("__all__ = ('f',)\ndef f(): pass\ndef h(): pass\n") == {"f"}
    assert public_names("def broken(:\n") == set()


def test_a_module_is_found_in_the_project_or_under_src(tmp_path: Path) -> None:
    root = write_files(tmp_path / "p", {"src/app/__init__.py": "", "lib.py": ""})
    assert module_file(root, "app") == root / "src/app/__init__.py"
    assert module_file(root, "lib") == root / "lib.py"
    assert module_file(root, "json") is None
    assert star_names(root, ["json", "lib"]) == {}


def test_a_transplant_imports_what_the_donor_has_from_a_star_import(tmp_path: Path) -> None:
    root = write_files(tmp_path / "p", FILES)
    donor = read_function(root, "tests/test_io.py::test_save")
    assert donor.star_names["save_group"] == "pkg.io"
    victim = read_function(root, "tests/test_load.py::test_load")
    ins = transplant(donor.statements, donor, victim)
    assert ins.statements == (
        "from pkg.io import save_group",
        'name = "all"',
        "save_group(group, name)",
    )
    assert ins.fixtures == ("group",)
    # a module with the same star import needs no import
    same = read_function(root, "tests/test_again.py::test_again")
    assert transplant(donor.statements, donor, same).statements[0] == 'name = "all"'


project = corpus_fixture("star_import_data_file")


def test_a_brittle_reading_a_file_another_module_writes_gets_its_statements(
    engine: Engine,
) -> None:
    """Corpus project ``star_import_data_file``: both test modules star-import what they
    test; the state-setter's save call needs its function imported in the brittle's."""
    brittle = "specio/tests/test_load.py::test_load_group"
    finding = ODFinding(
        brittle, "brittle", state_setters=["specio/tests/test_io.py::test_save_group"]
    )
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    statements = [s for ins in result.fix.insertions for s in ins.statements]
    assert "from specio.io import save_group" in statements
    assert "minimised" in result.fix.description, result.fix.description
