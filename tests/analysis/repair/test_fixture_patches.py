"""Fixture-side edits and lifted imports, checked on the exact patch text."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from orderdep.analysis.repair.write.patches import (
    Insertion,
    apply_insertion,
    apply_insertions,
    unified_diff,
)
from orderdep.errors import UsageError

CONFTEST = textwrap.dedent(
    """\
    import pytest

    import kv


    @pytest.fixture(scope="session")
    def stock(tmp_path_factory):
        return tmp_path_factory.mktemp("data")


    @pytest.fixture(scope="module", params=[1, 2])
    def size(request):
        return request.param
    """
)


def test_narrowing_drops_the_scope_and_says_why() -> None:
    ins = Insertion("tests/conftest.py::stock", (), comment="Function scope.", edit="narrow")
    new = apply_insertion(CONFTEST, ins)
    assert new == CONFTEST.replace(
        '@pytest.fixture(scope="session")', "# Function scope.\n@pytest.fixture"
    )
    assert apply_insertion(new, ins) == new  # narrowing twice changes nothing


def test_narrowing_keeps_the_other_arguments() -> None:
    new = apply_insertion(CONFTEST, Insertion("tests/conftest.py::size", (), edit="narrow"))
    assert "@pytest.fixture(params=[1, 2])\ndef size(request):" in new


def test_narrowing_an_unknown_fixture_is_an_error() -> None:
    with pytest.raises(UsageError, match="no fixture 'nope'"):
        apply_insertion(CONFTEST, Insertion("tests/conftest.py::nope", (), edit="narrow"))


AUTOUSE = Insertion(
    "tests/conftest.py::_restore_kv_state",
    ("import copy", "saved = copy.deepcopy(kv.STATE)",
     "request.addfinalizer(lambda saved=saved: (kv.STATE.clear(), kv.STATE.update(saved)))"),
    ("request",),
    comment="Put kv.STATE back after every test.",
    edit="autouse",
)  # fmt: skip


def test_autouse_fixture_appended_with_its_imports_at_the_top() -> None:
    new = apply_insertion(CONFTEST, AUTOUSE)
    assert new == "import copy\n\n" + CONFTEST + textwrap.dedent(
        """\


        @pytest.fixture(autouse=True)
        def _restore_kv_state():
            # Put kv.STATE back after every test.
            saved = copy.deepcopy(kv.STATE)
            yield
            kv.STATE.clear()
            kv.STATE.update(saved)
        """
    )
    assert apply_insertion(new, AUTOUSE) == new  # there already: not added twice


def test_autouse_fixture_creates_the_conftest_and_the_diff_says_so(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    changes = apply_insertions(tmp_path, [AUTOUSE])
    assert changes["tests/conftest.py"][0] == ""
    diff = unified_diff(changes)
    assert diff.startswith(
        "diff --git a/tests/conftest.py b/tests/conftest.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/tests/conftest.py\n"
    )
    assert changes["tests/conftest.py"][1].startswith("import copy\n\nimport pytest\n\n\n@pytest")


TEST_FILE = textwrap.dedent(
    '''\
    """Tests of the store."""
    import json

    import pytest

    from app import jobs


    def test_a():
        assert jobs
    '''
)


def test_standard_library_imports_go_to_the_top_in_isort_order() -> None:
    ins = Insertion(
        "tests/test_a.py::test_a",
        ("import os", "import copy", "monkeypatch.setenv('A', os.environ['A'])"),
        ("monkeypatch",),
    )
    new = apply_insertion(TEST_FILE, ins)
    assert new.startswith('"""Tests of the store."""\nimport copy\nimport json\nimport os\n\n')
    assert "def test_a(monkeypatch):\n    monkeypatch.setenv('A', os.environ['A'])\n" in new
    assert new.count("import os") == 1


def test_from_import_merges_with_the_existing_one_and_project_imports_stay_inline() -> None:
    ins = Insertion(
        "tests/test_a.py::test_a",
        ("from app import config", "import backend", "config.reset()", "backend.stop()"),
    )
    new = apply_insertion(TEST_FILE, ins)
    assert "\nfrom app import config, jobs\n" in new
    # importing a project module at collection could change what the tests observe
    assert "def test_a():\n    import backend\n    config.reset()\n" in new


def test_imports_into_a_file_without_any() -> None:
    new = apply_insertion(
        "def test_a():\n    pass\n", Insertion("t.py::test_a", ("import sys", "sys.path"))
    )
    assert new == "import sys\n\n\ndef test_a():\n    sys.path\n    pass\n"


def test_a_new_section_gets_its_blank_line() -> None:
    source = "import json\n\n\ndef test_a():\n    pass\n"
    ins = Insertion("t.py::test_a", ("from pytest import MonkeyPatch", "MonkeyPatch()"))
    # not the standard library nor imported from already: stays inline
    assert "    from pytest import MonkeyPatch\n" in apply_insertion(source, ins)
    ins = Insertion("t.py::test_a", ("import pytest", "pytest.skip"))
    assert apply_insertion(source, ins).startswith("import json\n\nimport pytest\n\n\ndef")


def test_setup_function_is_added_without_a_decorator_or_imports() -> None:
    source = "import os\n\n\ndef setup_module():\n    os.getcwd()\n"
    ins = Insertion(
        "t.py::setup_function", ("setup_module()",), comment="Again.", edit="setup_function"
    )
    new = apply_insertion(source, ins)
    assert new == source + "\n\ndef setup_function():\n    # Again.\n    setup_module()\n"
    assert apply_insertion(new, ins) == new


def test_narrowing_a_fixture_of_a_class_edits_that_method_only() -> None:
    source = textwrap.dedent(
        """\
        import pytest


        @pytest.fixture(scope="class")
        def inventory():
            return []


        class TestInventory:
            @pytest.fixture(scope="class")
            def inventory(self):
                return []
        """
    )
    ins = Insertion("t.py::TestInventory::inventory", (), comment="Fresh.", edit="narrow")
    new = apply_insertion(source, ins)
    assert new == source.replace(
        '    @pytest.fixture(scope="class")\n    def inventory(self)',
        "    # Fresh.\n    @pytest.fixture\n    def inventory(self)",
    )
    assert apply_insertion(new, ins) == new
    with pytest.raises(UsageError, match="no fixture 'TestOther::inventory'"):
        apply_insertion(source, Insertion("t.py::TestOther::inventory", (), edit="narrow"))


@pytest.mark.parametrize(
    ("source", "merged"),
    [
        (
            "from pkg import (\n    alpha,\n    gamma,\n)\n",
            "from pkg import (\n    alpha,\n    beta,\n    gamma,\n)\n",
        ),
        ("from pkg import (\n    gamma\n)\n", "from pkg import (\n    beta,\n    gamma\n)\n"),
        ("from pkg import (alpha, gamma)\n", "from pkg import (alpha, beta, gamma)\n"),
        ("from pkg import (gamma)\n", "from pkg import (beta, gamma)\n"),
        ("from pkg import alpha, gamma\n", "from pkg import alpha, beta, gamma\n"),
    ],
)
def test_a_merged_from_import_keeps_its_layout(source: str, merged: str) -> None:
    """A name added to a project's parenthesized import, one name per line, stays one per
    line: the patch changes one line, not the whole statement."""
    ins = Insertion("t.py::test_a", ("from pkg import beta", "beta()"))
    new = apply_insertion(source + "\n\ndef test_a():\n    pass\n", ins)
    assert new.startswith(merged + "\n\ndef test_a():\n    beta()\n")


MULTILINE = 'TEMPLATE = """[main]\n  name = x\nend"""'
LOOP = 'for key in ("a", "b"):\n    kv.STATE[key] = """first\nsecond"""'


@pytest.mark.parametrize("classes", [[], ["TestKv"]])
def test_a_multi_line_string_keeps_its_text_in_a_new_fixture(classes: list[str]) -> None:
    source = "import kv\n\n\nclass TestKv:\n    def test_a(self):\n        pass\n"
    test = "::".join(["test_kv.py", *classes, "_set_up"])
    ins = Insertion(test, (MULTILINE, LOOP), fixtures=(), comment="Set up.", edit="autouse")
    new = apply_insertion(source, ins)
    fixture = next(i for i, line in enumerate(new.splitlines()) if "def _set_up" in line)
    assert "[main]\n  name = x\nend" in new  # not re-indented inside the string
    assert "first\nsecond" in new
    compile(new, "test_kv.py", "exec")
    assert new.splitlines()[fixture + 1].strip() == "# Set up."


def test_a_comment_is_one_line_shortened_as_far_as_it_must() -> None:
    from orderdep.analysis.repair.write.fixture_patches import comment_lines, one_line

    said = "Set up the state this test needs (as TestA.test_b does); it is put back when it ends."
    assert one_line(said, 100) == said
    assert one_line(said, 80) == (
        "Set up the state this test needs (as test_b does); it is put back when it ends."
    )
    assert one_line(said, 60) == "Set up the state this test needs (as test_b does)."
    undo = "Undo this test's change to app.jobs._JOBS when it ends (test_no_jobs needs it)."
    assert one_line(undo, 60) == "Undo this test's change to app.jobs._JOBS when it ends."
    assert one_line(undo, 45) == "Undo this test's change to app.jobs._JOBS."
    scope = "Function scope (was session): test_a changes the value; test_b needs a fresh one."
    assert one_line(scope, 70) == "Function scope (was session): test_a changes the value."
    assert one_line(undo, 20) is None
    # what cannot be one line is wrapped whole
    lines = [line.comment.value for line in comment_lines(undo, 88 - 22)]
    assert len(lines) > 1 and " ".join(x[2:] for x in lines) == undo


def test_a_wrapped_comment_names_two_tests_of_many() -> None:
    from orderdep.analysis.repair.write.fixture_patches import comment_lines, fewer_names

    names = [f"test_reads_the_data_directory_{i}" for i in range(9)]
    needs = ", ".join(names[:-1]) + " and " + names[-1]
    tail = "Put $THE_PROJECTS_DATA_DIRECTORY back after every test."
    said = f"Unset $THE_PROJECTS_DATA_DIRECTORY before every test ({needs} need it). {tail}"
    short = (
        "Unset $THE_PROJECTS_DATA_DIRECTORY before every test (test_reads_the_data_directory_0,"
        f" test_reads_the_data_directory_1 and 7 other tests need it). {tail}"
    )
    assert fewer_names(said) == short
    lines = [line.comment.value for line in comment_lines(said, 4)]
    assert " ".join(x[2:] for x in lines) == short
    three = "Put X back (test_a, test_b and test_c need it)."
    assert fewer_names(three) == three


def test_a_comment_names_the_modules_own_state_bare_and_counts_past_three() -> None:
    from orderdep.analysis.repair.candidates.candidates import state_names

    test = "pkg/test/test_location.py::test_zero"
    roots = [f"pkg.test.test_location.well{i}" for i in range(4)]
    assert state_names(roots, test) == "well0 and 3 more"
    assert state_names(roots[:2], test) == "well0, well1"
    # imported as test_location (rootdir on sys.path), or from another module
    assert state_names(["test_location.x", "other.y"], test) == "x, other.y"
    assert state_names(["pkg.test.test_location"], test) == "pkg.test.test_location"
    # the rootdir is itself a package: the module is imported under its name
    assert state_names(["proj.pkg.test.test_location.T.graph"], test) == "T.graph"
    assert state_names(["other.test_location.x"], test) == "other.test_location.x"
    assert state_names(["env:HOME"], test) == "$HOME"


def test_a_file_that_imports_fixture_from_pytest_gets_a_fixture_in_its_style() -> None:
    source = "from pytest import fixture\n\n\n@fixture\ndef app():\n    return 1\n"
    new = apply_insertion(source, replace(AUTOUSE, statements=("kv.STATE.clear()",),
                                          fixtures=()))  # fmt: skip
    assert "\n@fixture(autouse=True)\ndef _restore_kv_state():\n" in new
    assert "import pytest" not in new
    both = "import pytest\nfrom pytest import fixture\n"  # pytest imported too: as it is
    assert "@pytest.fixture(autouse=True)" in apply_insertion(both, AUTOUSE)
