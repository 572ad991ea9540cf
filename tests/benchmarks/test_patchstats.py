"""``benchmarks/patchstats.py``: changed lines and repeated blocks of a patch set."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from patchstats import changed_lines, repeated_blocks  # noqa: E402

PASTED = """\
--- a/tests/test_api.py
+++ b/tests/test_api.py
@@ -10,6 +10,9 @@
     def test_one(self):
+        # Clean up what an earlier test may leave behind.
+        mock.MagicMock.content = PropertyMock(
+            return_value='{}'
+        )
         self.assertTrue(True)
@@ -20,6 +23,9 @@
     def test_two(self):
+        # Clean up what an earlier test may leave behind (test_x needs it).
+        mock.MagicMock.content = PropertyMock(
+            return_value='{}'
+        )
         self.assertTrue(True)
"""


def test_a_block_pasted_into_two_tests_is_one_repeat() -> None:
    assert repeated_blocks(PASTED) == 1  # comments differ, code does not
    assert changed_lines(PASTED) == 8


def test_one_line_guards_and_imports_are_not_blocks() -> None:
    diff = "+++ b/t.py\n+import os\n+x = 1\n context\n+import os\n+x = 1\n"
    assert repeated_blocks(diff) == 0
    assert repeated_blocks("+a = 1\n+b = 2\n c\n+a = 1\n+b = 2\n c\n+a = 1\n+b = 2\n") == 2
