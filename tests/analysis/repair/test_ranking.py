"""How candidate patches are sized for ranking."""

from __future__ import annotations

from pathlib import Path

from orderdep.analysis.repair.candidates.ranking import LINE_WIDTH, changed_chars, reading_size

HEADER = "--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,3 @@\n"


def test_a_long_literal_counts_as_the_lines_a_reader_scrolls_through() -> None:
    literal = "+    path.write_text('" + "x" * (3 * LINE_WIDTH) + "')\n"
    assert reading_size(HEADER + literal) == 4
    six_short = "".join(f"+    step_{i}()\n" for i in range(6))
    assert reading_size(HEADER + six_short) == 6
    # blank lines, context and file headers do not count
    assert reading_size(HEADER + " context\n+\n-    old()\n") == 1


def test_changed_characters_count_added_and_removed_lines_only() -> None:
    assert changed_chars(HEADER + " context\n+    a()\n-    bb()\n") == len("+    a()") + len(
        "-    bb()"
    )


def test_a_literal_naming_orderdeps_copy_is_written_from_the_statements_file(
    tmp_path: Path,
) -> None:
    import tempfile

    from orderdep.analysis.repair.candidates.candidates import Candidate
    from orderdep.analysis.repair.candidates.copy_paths import relocated
    from orderdep.analysis.repair.write.patches import Insertion

    project = tmp_path / "shop"
    copy = f"{tempfile.gettempdir()}/orderdep-x1y2/w0/tree/shop"
    cand = Candidate("restore", "d", [
        Insertion("pkg/tests/test_a.py::test_b", (
            f"monkeypatch.setattr(Tool, '_cwd', '{copy}/pkg/tests/fixtures')",
            f'monkeypatch.setattr(Tool, "_root", "{copy}")',
            "monkeypatch.setattr(Tool, '_other', '/srv/shop/data')",
        ), ("monkeypatch",)),
    ])  # fmt: skip
    (ins,) = relocated(cand, project).insertions
    assert ins.statements == (
        "import os",
        "monkeypatch.setattr(Tool, '_cwd', os.path.join(os.path.dirname(__file__), 'fixtures'))",
        "monkeypatch.setattr(Tool, \"_root\", os.path.join(os.path.dirname(__file__), '../..'))",
        "monkeypatch.setattr(Tool, '_other', '/srv/shop/data')",  # not the copy: kept
    )
    # another project's copy, or none: unchanged
    assert relocated(cand, tmp_path / "other") is cand
