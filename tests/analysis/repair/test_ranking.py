"""How candidate patches are sized for ranking."""

from __future__ import annotations

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
