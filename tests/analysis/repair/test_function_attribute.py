"""A list kept as a function's attribute (corpus project ``function_attribute_hooks``):
``post_hook.eventually = []`` after ``def post_hook``, which a renewal appends its hook to
and nothing empties. No global names the list; the function's attribute is a root."""

from __future__ import annotations

from tests.analysis.repair.conftest import debug_first_polluter
from tests.analysis.repair.corpus_helpers import corpus_fixture

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding
from orderdep.engine.runner import Engine

VICTIM = "tests/test_hooks.py::test_the_final_call_runs_only_the_hook_given"
POLLUTER = "tests/test_renew.py::test_a_renewal_saves_its_post_hook"
FINDING = ODFinding(VICTIM, "victim", polluters=[POLLUTER])
ROOT = "renewal.hooks.post_hook.eventually"

project = corpus_fixture("function_attribute_hooks")


def test_the_debugger_names_the_function_s_attribute(engine: Engine) -> None:
    result = debug_first_polluter(engine, FINDING)
    assert result.polluted == [ROOT], result.notes


def test_a_verified_patch_puts_the_attribute_back(engine: Engine) -> None:
    result = Repairer(engine.config, engine).repair(FINDING)
    assert result.fix is not None, result.notes
    text = "\n".join(s for i in result.fix.insertions for s in i.statements)
    assert "post_hook" in text and "eventually" in text, text
