"""``Repairer`` on corpus projects whose shapes need more than one root or an unusual
name: a submodule its package hides, a brittle needing two roots, environment variables
a test sets together."""

from __future__ import annotations

from tests.analysis.repair.conftest import EngineFor

from orderdep.analysis.repair.fix import Repairer
from orderdep.core.report import ODFinding


def test_a_submodule_hidden_by_its_package_is_reached_through_importlib(
    engine_for: EngineFor,
) -> None:
    engine = engine_for("hidden_submodule_serializer")
    t = "tests/test_response.py::"
    finding = ODFinding(t + "test_body_is_json", "victim", polluters=[t + "test_custom_serializer"])
    auto = Repairer(engine.config, engine).repair(finding)
    assert auto.debug is not None
    (root,) = auto.debug.culprits
    assert root.shadowed == ("jsonapi.response",)  # jsonapi.response is the function
    assert root.passing.importable == "json:dumps"
    assert auto.fix is not None and auto.fix.strategy == "polluter", auto.notes
    assert auto.fix.insertions[0].statements == (
        "import importlib",
        "response_module = importlib.import_module('jsonapi.response')",
        "monkeypatch.setattr(response_module, 'SERIALIZE', response_module.SERIALIZE)",
    )
    restore = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert restore.fix is not None, restore.notes
    # the test module imports json already
    assert restore.fix.insertions[0].statements == (
        "import importlib",
        "response_module = importlib.import_module('jsonapi.response')",
        "monkeypatch.setattr(response_module, 'SERIALIZE', json.dumps)",
    )


def test_a_brittle_needing_two_roots_gets_both_set_up(engine_for: EngineFor) -> None:
    engine = engine_for("brittle_env_and_parser")
    brittle = "tests/test_settings.py::DefaultsTest::test_defaults_without_a_file"
    setter = "tests/test_settings.py::FileTest::test_reads_the_file"
    finding = ODFinding(brittle, "brittle", state_setters=[setter])
    result = Repairer(engine.config, engine).repair(finding)
    assert result.debug is not None and len(result.debug.polluted) == 2  # each one needed
    assert result.fix is not None and result.fix.strategy == "restore", result.notes
    assert result.fix.insertions[0].statements == (
        "monkeypatch.setitem(Settings.parser._defaults, 'timeout', '30')",
        "monkeypatch.setenv('APP_SETTINGS_FILE', 'app-settings.ini')",
    )
    # neither root alone was enough
    rejected = {n.split("(restores ")[1].split(")")[0] for n in result.notes if "restore: rej" in n}
    assert rejected == {"env:APP_SETTINGS_FILE", "settings.Settings.parser"}, result.notes


def test_a_polluter_undoes_every_variable_it_sets(engine_for: EngineFor) -> None:
    engine = engine_for("env_vars_set_together")
    t = "tests/test_config.py::"
    finding = ODFinding(t + "test_default_port", "victim", polluters=[t + "test_from_environment"])
    result = Repairer(engine.config, engine).repair(finding)
    assert result.debug is not None and result.debug.polluted == ["env:APP_PORT"]
    # undoing APP_PORT alone breaks test_all_defaults, whose clean-up stops at the first
    # variable that is not set
    assert result.fix is not None and result.fix.strategy == "polluter", result.notes
    assert [n for n in result.notes if "now failed in the original order" in n]
    statements = result.fix.insertions[0].statements
    assert [s for s in statements if "os.environ.pop" in s] == [  # one line each
        f"request.addfinalizer(lambda: os.environ.pop('{v}', None))"
        for v in ("APP_HOST", "APP_MODE", "APP_PORT")
    ]
    assert "$APP_HOST, $APP_MODE, $APP_PORT" in result.fix.diff.replace("\n+    # ", " ")


def test_a_brittle_adding_to_a_shared_object_sets_up_on_fresh_state(
    engine_for: EngineFor,
) -> None:
    engine = engine_for("fixture_module_router_count")
    t = "tests/test_routing.py::"
    finding = ODFinding(
        t + "test_register_class", "brittle", state_setters=[t + "test_register_function"]
    )
    result = Repairer(engine.config, engine).repair(finding)
    # the setter's statements alone register a function twice after the real setter
    assert [n for n in result.notes if "undone when it ends): " in n and "passing order" in n]
    assert result.fix is not None, result.notes
    assert result.fix.description.endswith("on fresh state, undone when it ends")
    statements = result.fix.insertions[0].statements
    assert statements[:3] == (
        "import copy",
        "saved = copy.deepcopy(vars(router))",
        "request.addfinalizer(lambda saved=saved: "
        "(vars(router).clear(), vars(router).update(saved)))",
    )
    assert statements[3:] == (
        "router._routes.clear()",
        'def index():\n    return "index"',
        'router.register(index, "/")',
    )


def test_a_restore_naming_orderdeps_own_copy_names_the_path_from_the_test_file(
    engine_for: EngineFor,
) -> None:
    """A module computes a path from its ``__file__``: in orderdep's runs that is a path
    into its temporary copy of the project, gone after the run; the restore names it
    from the test file instead. The polluter undoing its change still ranks first."""
    engine = engine_for("module_path_from_file")
    t = "tests/test_docgen.py::TestDocgen::"
    finding = ODFinding(t + "test_render_default", "victim", polluters=[t + "test_custom_template"])
    restore = Repairer(engine.config, engine, strategy="restore").repair(finding)
    assert restore.fix is not None, restore.notes
    text = "\n".join(s for ins in restore.fix.insertions for s in ins.statements)
    assert "orderdep-" not in text
    assert "os.path.join(os.path.dirname(__file__), '../docgen/templates/api.rst')" in text
    auto = Repairer(engine.config, engine).repair(finding)
    assert auto.fix is not None and auto.fix.strategy == "polluter", auto.notes
    text = "\n".join(s for ins in auto.fix.insertions for s in ins.statements)
    assert "orderdep-" not in text


def test_a_brittle_erroring_in_its_fixture_gets_its_set_up_before_the_fixtures(
    engine_for: EngineFor,
) -> None:
    from tests.analysis.repair.corpus_helpers import plain_outcomes

    from orderdep.analysis.repair.candidates.before_fixtures import SETUP_FIXTURE
    from orderdep.analysis.repair.fix_result import apply_fix

    engine = engine_for("brittle_fixture_setup")
    brittle = "tests/test_client.py::test_client_dsn"
    setter = "tests/test_a_setup.py::test_configure"
    finding = ODFinding(brittle, "brittle", state_setters=[setter])
    result = Repairer(engine.config, engine).repair(finding)
    assert result.debug is not None and result.debug.failing_outcome == "error"
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    # at the start of the test it comes too late: the fixture errors first
    assert ins.edit == "autouse" and ins.test == f"tests/test_client.py::{SETUP_FIXTURE}"
    assert "before each test of this module and its fixtures" in (ins.comment or "")
    apply_fix(engine.config.project, result.fix)
    orders = [[brittle], [setter, brittle], list(engine.suite.ids)]
    for outcome in plain_outcomes(
        engine.config.project, orders, engine.config.project.parent / "w"
    ):
        assert set(outcome.values()) == {"passed"}, outcome


def test_a_polluter_mutating_its_parametrize_arguments_works_on_copies(
    engine_for: EngineFor,
) -> None:
    from tests.analysis.repair.corpus_helpers import plain_outcomes

    from orderdep.analysis.repair.fix_result import apply_fix

    engine = engine_for("param_args_mutated")
    t = "tests/test_node.py::"
    victim, polluter = (
        t + "test_repr[atts0-path=None owner=None]",
        t + "test_take[atts0-path=None owner=None]",
    )
    finding = ODFinding(victim, "victim", polluters=[polluter])
    result = Repairer(engine.config, engine).repair(finding)
    assert result.fix is not None and result.fix.strategy == "polluter", result.notes
    (ins,) = result.fix.insertions
    # the list is put back in vain: the items hold the very dicts; `expected` is a string
    assert ins.test == polluter and ins.statements == ("import copy", "atts = copy.deepcopy(atts)")
    apply_fix(engine.config.project, result.fix)
    orders = [[polluter, victim], [victim], list(engine.suite.ids)]
    for outcome in plain_outcomes(
        engine.config.project, orders, engine.config.project.parent / "w"
    ):
        assert set(outcome.values()) == {"passed"}, outcome


def test_a_brittle_gets_the_decorated_class_its_setter_registers(
    engine_for: EngineFor,
) -> None:
    """The state-setter's statements need its ``self``; its decorated class alone
    registers the schema the brittle needs."""
    engine = engine_for("registry_decorated_setter")
    t = "tests/test_docs.py::DocsTest::"
    finding = ODFinding(
        t + "test_user_document", "brittle", state_setters=[t + "test_schema_fields"]
    )
    result = Repairer(engine.config, engine, strategy="cleaner").repair(finding)
    assert result.fix is not None, result.notes
    assert "1 definition(s) of state-setter" in result.fix.description, result.fix.description
    text = "\n".join(result.fix.insertions[0].statements)
    assert "@api.schema\nclass User:" in text, text
    assert "self.note" not in text, text


def test_a_brittle_reading_a_registry_in_set_up_gets_its_setters_import_there(
    engine_for: EngineFor,
) -> None:
    """``shapes.square`` registers itself when imported; a brittle reading the registry
    in ``setUp`` gets its state-setter's import there (in the test body it would come
    too late)."""
    engine = engine_for("modules_registered")
    t = "tests/test_shapes.py::"
    finding = ODFinding(
        t + "MakeTest::test_make_square",
        "brittle",
        state_setters=[t + "SquareTest::test_square_area"],
    )
    result = Repairer(engine.config, engine).repair(finding)
    assert result.fix is not None, result.notes
    (ins,) = result.fix.insertions
    assert "from shapes.square import Square" in ins.statements, ins
    assert ins.method == "setUp", ins
