from __future__ import annotations

from collections.abc import Hashable

import pytest

from orderdep.core.selection import (
    ALGORITHMS,
    MODULE_SCOPE,
    changed_functions,
    changed_lines,
    function_coverage,
    run_algorithm,
    select,
)
from orderdep.errors import UsageError

# Output of a real `git diff -U0 --cached` (deleted file, modified line, two insertions,
# a new file, and a path with a space whose deleted line itself starts with "-- ").
GIT_DIFF = """\
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 587be6b..0000000
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/m.py b/m.py
index a53ab17..92c98cb 100644
--- a/m.py
+++ b/m.py
@@ -2 +2 @@ def f():
-    a = 1
+    a = 2
@@ -6,0 +7 @@ def g():
+    y = 0
@@ -7,0 +9,3 @@ def g():
+
+def h():
+    pass
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..8ba3a16
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+n
diff --git a/s p.txt b/s p.txt
index afd631e..2fa992c 100644
--- a/s p.txt\t
+++ b/s p.txt\t
@@ -1 +0,0 @@
--- x
"""


def test_changed_lines_of_the_old_version() -> None:
    assert changed_lines(GIT_DIFF) == {
        "gone.py": {1},  # deleted file: its deleted lines
        "m.py": {2, 6, 7, 8},  # modified line 2; insertions after 6 and after 7
        "s p.txt": {1},  # tab after a name with a space is not part of the name
    }


def test_changed_lines_multi_line_hunks_and_prefixes() -> None:
    diff = (
        "--- pkg/a.py\n+++ pkg/a.py\n@@ -10,3 +10 @@\n-x\n-y\n-z\n+w\n@@ -20,2 +18,0 @@\n-p\n-q\n"
    )
    assert changed_lines(diff, prefix="") == {"pkg/a.py": {10, 11, 12, 20, 21}}
    # With the default prefix nothing is stripped from a path lacking it.
    assert changed_lines(diff) == {"pkg/a.py": {10, 11, 12, 20, 21}}


def test_changed_lines_quoted_path_and_no_newline_marker() -> None:
    diff = (
        'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\n'
        '--- "a/caf\\303\\251.py"\n'
        '+++ "b/caf\\303\\251.py"\n'
        "@@ -3 +3 @@\n"
        "-old\n"
        "\\ No newline at end of file\n"
        "+new\n"
        "\\ No newline at end of file\n"
        "@@ -0,0 +1 @@\n"
        "+first\n"
    )
    # An insertion before line 1 ("after line 0") marks line 1 only.
    assert changed_lines(diff) == {"café.py": {1, 3}}


def test_changed_lines_empty_diff() -> None:
    assert changed_lines("") == {}


FUNCS = {
    "m.py": [("f", 1, 3), ("g", 5, 8), ("h", 10, 12)],
    "n.py": [("k", 1, 4)],
}


def test_changed_functions_innermost_and_module_scope() -> None:
    funcs = {"m.py": [("C", 1, 20), ("C.meth", 3, 10), ("C.meth.inner", 5, 6)]}
    changed = {"m.py": {2, 4, 5, 25}, "other.py": {1}}
    assert changed_functions(changed, funcs) == {
        ("m.py", "C"),  # line 2: class body
        ("m.py", "C.meth"),  # line 4
        ("m.py", "C.meth.inner"),  # line 5 is only in the innermost function
        ("m.py", MODULE_SCOPE),  # line 25 is outside every range
        ("other.py", MODULE_SCOPE),  # no ranges for the file
    }


def test_changed_functions_same_start_picks_the_shorter_range() -> None:
    funcs = {"m.py": [("outer", 1, 10), ("inner", 1, 4)]}
    assert changed_functions({"m.py": {3, 7}}, funcs) == {("m.py", "inner"), ("m.py", "outer")}


def test_bad_inputs_raise_usage_errors() -> None:
    with pytest.raises(UsageError, match="ends before it starts"):
        changed_functions({"m.py": {1}}, {"m.py": [("f", 5, 2)]})
    with pytest.raises(UsageError, match="not a \\(file, line\\) pair"):
        function_coverage({"t": frozenset({("m.py", "f")})}, FUNCS)
    with pytest.raises(UsageError, match="'S7'"):
        run_algorithm("S7", [], {}, {})
    with pytest.raises(UsageError, match="functions="):
        run_algorithm("S4", ["t"], {}, {"m.py": {1}})
    with pytest.raises(UsageError, match="'fastest'"):
        select(["t"], {}, set(), "fastest")  # type: ignore[arg-type]


def cov(*elements: tuple[str, int]) -> frozenset[Hashable]:
    return frozenset(elements)


TESTS = ["t1", "t2", "t3", "t4", "t5", "t6"]
STMT = {
    "t1": cov(("m.py", 2), ("m.py", 6), ("m.py", 11)),  # f, g, h
    "t2": cov(("m.py", 3), ("m.py", 7)),  # f, g
    "t3": cov(("m.py", 2), ("n.py", 2), ("n.py", 3), ("n.py", 4)),  # f, k
    "t4": cov(("m.py", 7)),  # g
    "t5": cov(("n.py", 3)),  # k
    # t6: a new test, no old coverage
}


def test_function_coverage_from_statements() -> None:
    fc = function_coverage(STMT, FUNCS)
    assert fc["t1"] == {("m.py", "f"), ("m.py", "g"), ("m.py", "h")}
    assert fc["t3"] == {("m.py", "f"), ("n.py", "k")}
    assert "t6" not in fc


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        # statement: line m.py:2 changed -> t1 and t3 cover it
        ("S1", ["t1", "t3"]),
        ("S2", ["t3", "t1"]),  # t3 covers 4 lines, t1 3
        ("S3", ["t3", "t1"]),  # t1 still adds m.py:6 and m.py:11
        # function: f changed -> t1, t2, t3 cover it
        ("S4", ["t1", "t2", "t3"]),
        ("S5", ["t1", "t2", "t3"]),  # 3 functions, then 2 and 2 (tie: original order)
        ("S6", ["t1", "t3", "t2"]),  # t2 adds nothing after t1, t3 adds k
    ],
)
def test_table_2_on_a_hand_computed_example(label: str, expected: list[str]) -> None:
    assert run_algorithm(label, TESTS, STMT, {"m.py": {2}}, FUNCS) == expected


def test_function_selection_catches_changes_to_lines_no_test_ran() -> None:
    # m.py:8 is in g but no test executed it: statement selection selects nothing,
    # function selection selects every test that ran g.
    assert run_algorithm("S1", TESTS, STMT, {"m.py": {8}}, FUNCS) == []
    assert run_algorithm("S4", TESTS, STMT, {"m.py": {8}}, FUNCS) == ["t1", "t2", "t4"]


def test_selection_from_a_diff_end_to_end() -> None:
    stmt = {"a": cov(("m.py", 7)), "b": cov(("m.py", 3)), "c": cov(("gone.py", 1))}
    changed = changed_lines(GIT_DIFF)
    assert run_algorithm("S1", ["a", "b", "c"], stmt, changed) == ["a", "c"]
    funcs = {"m.py": [("f", 1, 3), ("g", 6, 7)]}
    # function level: line 2 is in f -> b ran f too
    assert run_algorithm("S4", ["a", "b", "c"], stmt, changed, funcs) == ["a", "b", "c"]


def test_table_2_rows() -> None:
    assert {k: (a.granularity, a.ordering) for k, a in ALGORITHMS.items()} == {
        "S1": ("statement", "id"),
        "S2": ("statement", "total"),
        "S3": ("statement", "additional"),
        "S4": ("function", "id"),
        "S5": ("function", "total"),
        "S6": ("function", "additional"),
    }
