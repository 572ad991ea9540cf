"""Statements at a test module's top level (repair.write.module_top), through
``apply_insertion`` as every patch is written."""

from __future__ import annotations

import textwrap

from orderdep.analysis.repair.write.patches import Insertion, apply_insertion

SOURCE = textwrap.dedent(
    '''
    """Tests of the reader."""

    from __future__ import annotations

    import os

    import pytest


    def test_read():
        assert os
    '''
).lstrip()
COPY = (
    "import sys",
    "from pathlib import Path",
    'SCRIPTS = Path(__file__).parent / "scripts"',
    "if str(SCRIPTS) not in sys.path:\n    sys.path.insert(0, str(SCRIPTS))",
)


def _top(
    statements: tuple[str, ...], comment: str = "what tests/test_a.py does at import"
) -> Insertion:
    return Insertion("tests/test_b.py::test_read", statements, comment=comment, edit="module_top")


def test_imports_join_the_block_and_the_rest_follows_it_under_its_comment() -> None:
    out = apply_insertion(SOURCE, _top(COPY))
    assert (
        out
        == textwrap.dedent(
            '''
        """Tests of the reader."""

        from __future__ import annotations

        import os
        import sys
        from pathlib import Path

        import pytest

        # what tests/test_a.py does at import
        SCRIPTS = Path(__file__).parent / "scripts"
        if str(SCRIPTS) not in sys.path:
            sys.path.insert(0, str(SCRIPTS))


        def test_read():
            assert os
        '''
        ).lstrip()
    )
    assert apply_insertion(out, _top(COPY)) == out  # applying it twice changes nothing


def test_the_import_of_a_test_module_stays_below_the_block_with_its_comment() -> None:
    out = apply_insertion(SOURCE, _top(("import test_a  # noqa: F401",), "import it"))
    assert "import pytest\n\n# import it\nimport test_a  # noqa: F401\n\n\ndef test_read" in out


def test_a_file_without_imports_gets_the_statements_first() -> None:
    out = apply_insertion("def test_read():\n    pass\n", _top(("import test_a  # noqa: F401",)))
    assert out.startswith("# what tests/test_a.py does at import\nimport test_a  # noqa: F401\n")


def test_a_path_insert_goes_before_the_import_that_needs_it_and_after_what_it_reads() -> None:
    source = "import registry\nimport tool\n\n\ndef test_tool():\n    pass\n"
    out = apply_insertion(source, _top(("import sys", "sys.path.insert(0, 'helpers')")))
    assert out.startswith(
        "import sys\n\n# what tests/test_a.py does at import\n"
        "sys.path.insert(0, 'helpers')\n\nimport registry\nimport tool\n"
    ), out
    out = apply_insertion(source, _top(("registry.GROUPS['csv'] = object()",)))
    assert out.startswith(
        "import registry\n\n# what tests/test_a.py does at import\n"
        "registry.GROUPS['csv'] = object()\nimport tool\n"
    ), out


def test_statements_that_read_a_module_go_after_the_plain_imports_that_follow_it() -> None:
    source = "from typing import Any\nimport emoji.unicode_codes\nimport pytest\n\n\ndef test_v():\n    pass\n"
    out = apply_insertion(source, _top(("emoji.emojize('')",)))
    assert out.startswith(
        "from typing import Any\nimport emoji.unicode_codes\nimport pytest\n\n"
        "# what tests/test_a.py does at import\nemoji.emojize('')\n"
    ), out
