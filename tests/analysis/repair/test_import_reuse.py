"""Patches going into one shared method use one name for one imported module."""

from __future__ import annotations

import textwrap

from orderdep.analysis.repair.write.import_reuse import reuse_imports
from orderdep.analysis.repair.write.patches import Insertion, apply_insertion

HAVE = [
    "from app.core import registry",
    "self.addCleanup(lambda: registry.TIMERS.pop('t', None))",
]


def test_an_import_under_another_name_becomes_the_functions_own() -> None:
    code = [
        "from app.core import registry as _registry",
        "self.addCleanup(lambda: _registry.METERS.pop('t', None))",
    ]
    assert reuse_imports(code, HAVE) == [
        "from app.core import registry",
        "self.addCleanup(lambda: registry.METERS.pop('t', None))",
    ]
    plain = ["import app.core.registry as orderdep_app_core_registry",
             "orderdep_app_core_registry.COUNTERS.clear()", "x = obj.orderdep_app_core_registry"]  # fmt: skip
    assert reuse_imports(plain, HAVE) == [
        "from app.core import registry", "registry.COUNTERS.clear()", "x = obj.orderdep_app_core_registry"
    ]  # fmt: skip


def test_other_imports_and_statements_are_left_as_they_are() -> None:
    code = ["import copy", "from app.core import clock as _clock", "_clock.reset()"]
    assert reuse_imports(code, HAVE) == code
    assert reuse_imports(["from app.core import registry"], HAVE) == [
        "from app.core import registry"
    ]


SOURCE = """
    import unittest


    class TestMetrics(unittest.TestCase):
        def setUp(self):
            # Undo what the timer tests leave.
            from app.core import registry
            self.addCleanup(lambda: registry.TIMERS.pop('t', None))
            self.n = 0

        def test_meter(self):
            pass
"""


def test_a_second_patch_in_one_setup_uses_the_name_the_first_bound() -> None:
    ins = Insertion(
        "tests/test_m.py::TestMetrics::test_meter",
        ("from app.core import registry as _registry",
         "self.addCleanup(lambda: _registry.METERS.pop('t', None))"),
        method="setUp",
    )  # fmt: skip
    new = apply_insertion(textwrap.dedent(SOURCE).lstrip(), ins)
    assert "_registry" not in new, new
    assert "self.addCleanup(lambda: registry.METERS.pop('t', None))" in new
    body = new.split("def setUp(self):")[1].split("def test_meter")[0]
    # the inserted statements come first, with their own import before them; the import
    # further down is gone, its comment kept above the statement it described
    assert body.index("from app.core import registry") < body.index("registry.METERS")
    assert body.count("from app.core import registry") == 1, body
    comment = body.index("# Undo what the timer tests leave.")
    assert body.index("registry.METERS") < comment < body.index("registry.TIMERS"), body
