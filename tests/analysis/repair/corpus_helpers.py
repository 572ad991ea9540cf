"""Run ``orderdep detect --classify`` and ``orderdep fix`` on the repair corpus.

Each project of ``corpus/`` is a small suite in a real-world shape with one or more
order-dependent tests; :data:`EXPECTED` names them (confirmed under plain pytest by
tests/analysis/repair/test_corpus_repair.py), so a detection miss counts as a repair miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest

from orderdep.core.report import ODFinding
from orderdep.engine.config import EngineConfig
from orderdep.engine.plain import PlainRunner
from orderdep.shells.cli import main

CORPUS = Path(__file__).resolve().parent / "corpus"

# project -> {OD test: (kind, a test that makes it flip)}
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "env_setup_unittest": {
        "tests/test_paths.py::TestDefaultCache::test_default_cache_dir": (
            "victim", "tests/test_paths.py::TestCustomCache::test_custom_cache_dir"),
    },
    "env_fixture_conftest": {
        "tests/test_mode.py::test_online_by_default": (
            "victim", "tests/test_mode.py::test_offline_mode"),
    },
    "env_setupclass_xdg": {
        "tests/test_config.py::TestUserConfig::test_config_in_home": (
            "victim", "tests/test_config.py::TestPortableConfig::test_config_under_xdg"),
    },
    "deleted_cwd_unittest": {
        "tests/test_reporter.py::TestOutputPath::test_relative_name": (
            "victim", "tests/test_reporter.py::TestInTempDir::test_writes_into_cwd"),
    },
    "deleted_cwd_pytest": {
        "tests/test_find.py::test_search_starts_at_cwd": (
            "victim", "tests/test_find.py::test_finds_nothing_in_scratch_dir"),
    },
    "modules_reimport": {
        "tests/test_settings.py::test_default_currency": (
            "victim", "tests/test_settings.py::test_currency_from_env"),
    },
    "modules_lazy": {
        "tests/test_lazy.py::test_backend_is_imported_lazily": (
            "victim", "tests/test_lazy.py::test_render"),
    },
    "modules_reload_binding": {
        "tests/test_parser.py::test_bad_line_raises": (
            "victim", "tests/test_errors.py::test_error_module_reloads_cleanly"),
    },
    "fixture_module_graph": {
        "tests/test_graph.py::test_nodes": ("victim", "tests/test_graph.py::test_add_edge"),
    },
    "fixture_session_file": {
        "tests/test_stock.py::test_initial_stock": (
            "victim", "tests/test_stock.py::test_sell_apple"),
    },
    "fixture_session_settings": {
        "tests/test_pages.py::test_page_count": (
            "victim", "tests/test_theme.py::test_big_pages"),
    },
    "module_path_from_file": {
        "tests/test_docgen.py::TestDocgen::test_render_default": (
            "victim", "tests/test_docgen.py::TestDocgen::test_custom_template"),
    },
    "fixture_in_class_inventory": {
        "tests/test_inventory.py::TestInventory::test_count": (
            "victim", "tests/test_inventory.py::TestInventory::test_ship_bolt"),
        "tests/test_inventory.py::TestSessions::test_anonymous": (
            "victim", "tests/test_inventory.py::TestSessions::test_login"),
    },
    "fixture_class_catalog_unittest": {
        "tests/test_catalog.py::TestPrices::test_tea_price": (
            "victim", "tests/test_catalog.py::TestSale::test_half_price_tea"),
    },
    "fixture_teardown_connection": {
        "tests/test_store.py::test_count_rows": (
            "victim", "tests/test_store.py::test_raw_query"),
    },
    "fixture_module_router_brittle": {
        "tests/test_router.py::test_dispatch_index": (
            "brittle", "tests/test_router.py::test_add_index"),
    },
    "xunit_setup_module_file": {
        "tests/test_notes.py::test_first_note_only": (
            "victim", "tests/test_notes.py::test_add_note"),
    },
    "xunit_setup_module_handle": {
        "tests/test_shell.py::test_ls": ("victim", "tests/test_shell.py::test_rm_page"),
        "tests/test_shell.py::test_cat": ("victim", "tests/test_shell.py::test_rm_item"),
    },
    "import_time_config": {
        "tests/test_level.py::test_default_level": (
            "victim", "tests/test_level.py::test_level_from_env"),
    },
    "fixture_teardown_state": {
        "tests/test_kv.py::test_write": (
            "victim", "tests/test_kv.py::test_writes_refused_in_maintenance"),
    },
    "class_attr_chain_graph": {
        "tests/test_graph.py::TestGraph::test_first_vertex": (
            "victim", "tests/test_graph.py::TestGraph::test_loop"),
    },
    "class_attr_helper": {
        "tests/test_render.py::test_full": ("victim", "tests/test_render.py::test_compact"),
    },
    "brittle_mock_spec_fixture": {
        "tests/test_push.py::test_push_uses_the_factory": (
            "brittle", "tests/test_push.py::test_target_is_wired"),
    },
    "fixture_module_shared_ticket": {
        "tests/test_tickets.py::test_first_ticket": (
            "victim", "tests/test_tickets.py::test_third_ticket"),
        "tests/test_tickets.py::test_third_ticket": (
            "brittle", "tests/test_tickets.py::test_first_ticket"),
    },
    "numpy_class_grid": {
        "tests/test_rain.py::TestFindRain::test_dry_profile": (
            "victim", "tests/test_rain.py::TestFindRain::test_rain_everywhere"),
    },
    "factory_class_globals": {
        "tests/test_globals.py::TestGlobals::test_debug_default_value": (
            "victim", "tests/test_globals.py::TestGlobals::test_debug_set_true"),
    },
    "dead_subclass_registry": {
        "tests/test_plugins.py::test_no_plugins_by_default": (
            "victim", "tests/test_plugins.py::test_a_plugin_registers_itself"),
    },
    "class_method_stubbed": {
        "tests/test_sync.py::test_count_reads_the_backend": (
            "victim", "tests/test_sync.py::test_count_of_an_empty_backend"),
        "tests/test_sync.py::test_push_two_tasks": (
            "brittle", "tests/test_sync.py::test_push_wires_the_target"),
    },
    "class_attr_setupclass": {
        "tests/test_client.py::TestClientDefaults::test_default_timeout": (
            "victim", "tests/test_client.py::TestFastClient::test_fast_timeout"),
    },
    "class_attrs_schema_helper": {
        "tests/test_elements.py::PadTests::test_pad": (
            "victim", "tests/test_schema.py::SchemaTests::test_one_field"),
        "tests/test_elements.py::MarkerTests::test_marker": (
            "victim", "tests/test_schema.py::SchemaTests::test_one_field"),
    },
    "class_flag_constructor": {
        "tests/test_series.py::test_time_is_not_a_field": (
            "victim", "tests/test_series.py::test_line_from_keyword_arguments"),
        "tests/test_series.py::test_line_from_keyword_arguments": (
            "victim", "tests/test_series.py::test_time_is_not_a_field"),
    },
    "modules_purge_package": {
        "tests/test_store.py::test_round_trip": (
            "victim", "tests/test_imports.py::test_submodule_imports[store]"),
        "tests/test_store.py::test_load_checks_the_type": (
            "victim", "tests/test_imports.py::test_submodule_imports[records]"),
    },
    "modules_purge_unittest": {
        "tests/test_convert.py::TestConvert::test_km_to_m": (
            "victim", "tests/test_packaging.py::TestModulesImportAlone::test_convert_imports_alone"),
    },
    "param_brittle_registry": {
        "tests/test_export.py::test_export[csv-,]": (
            "brittle", "tests/test_export.py::test_register_builtins"),
        "tests/test_export.py::test_export[tsv-\\t]": (
            "brittle", "tests/test_export.py::test_register_builtins"),
    },
    "param_brittle_env": {
        f"tests/test_datadir.py::test_path_of[{n}]": (
            "brittle", "tests/test_datadir.py::test_home_configured")
        for n in ("a.db", "b.db", "c.db")
    },
    "cli_argv": {
        "tests/test_cli.py::test_greeting_without_arguments": (
            "victim", "tests/test_cli.py::test_shout_from_command_line"),
    },
    "cache_home_config": {
        "tests/test_settings.py::test_default_width": (
            "victim", "tests/test_settings.py::test_user_settings"),
        "tests/test_settings.py::test_user_settings": (
            "victim", "tests/test_settings.py::test_default_width"),
    },
    "teardown_module_template": {
        "tests/test_reporter.py::TestReporter::test_default_header": (
            "victim", "tests/test_examples.py::test_example_add"),
    },
    "star_import_data_file": {
        "specio/tests/test_load.py::test_load_group": (
            "brittle", "specio/tests/test_io.py::test_save_group"),
    },
    "singleton_two_polluters": {
        "tests/test_recorder.py::TestRecorder::test_record_one": (
            "victim", "tests/test_views.py::TestViews::test_index"),
    },
    "singleton_db": {
        "tests/test_db.py::TestDefaultDatabase::test_in_memory_by_default": (
            "victim", "tests/test_db.py::TestFileDatabase::test_url"),
        "tests/test_db.py::TestFileDatabase::test_url": (
            "victim", "tests/test_db.py::TestDefaultDatabase::test_in_memory_by_default"),
    },
    "hidden_submodule_serializer": {
        "tests/test_response.py::test_body_is_json": (
            "victim", "tests/test_response.py::test_custom_serializer"),
    },
    "brittle_env_and_parser": {
        "tests/test_settings.py::DefaultsTest::test_defaults_without_a_file": (
            "brittle", "tests/test_settings.py::FileTest::test_reads_the_file"),
    },
    "env_vars_set_together": {
        "tests/test_config.py::test_default_port": (
            "victim", "tests/test_config.py::test_from_environment"),
    },
    "fixture_module_router_count": {
        "tests/test_routing.py::test_register_class": (
            "brittle", "tests/test_routing.py::test_register_function"),
        "tests/test_routing.py::test_register_function": (
            "victim", "tests/test_routing.py::test_register_class"),
    },
    "singleton_registry_lock": {
        "tests/test_core.py::test_core_commands": (
            "victim", "tests/test_apps.py::test_editor_commands"),
        "tests/test_top.py::test_pause_is_not_top_level": (
            "brittle", "tests/test_top.py::test_repeat_is_top_level"),
    },
    "registry_plugins": {
        "tests/test_hooks.py::test_builtins_only": (
            "victim", "tests/test_hooks.py::test_custom_plugin"),
    },
    "block_victims": {
        **{f"tests/test_client.py::TestErrors::test_{n}": (
            "victim", "tests/test_client.py::TestErrors::test_validation_list_body")
           for n in ("bad_request", "denied", "not_found")},
        **{f"tests/test_functions.py::test_{n}": (
            "victim", "tests/test_functions.py::test_validation_list_body")
           for n in ("bad_request", "denied")},
    },
    "logging_dictconfig": {
        "tests/test_ship.py::test_ship_is_logged": (
            "victim", "tests/test_verbose.py::test_verbose_configuration"),
    },
    "mutable_default_headers": {
        f"tests/test_client.py::test_{n}": (
            "victim", "tests/test_client.py::test_request_with_token_sends_authorization")
        for n in ("request_without_token_sends_no_authorization",
                  "request_sends_json_accept_header")
    },
    "victims_one_settings": {
        f"tests/test_pages.py::test_{n}": (
            "victim", "tests/test_shop_admin.py::test_admin_shows_more_per_page")
        for n in ("first_page", "second_page", "page_count", "last_page_is_short",
                  "full_pages[0]", "full_pages[1]", "full_pages[2]")
    },
    "many_polluters_conftest": {
        "tests/test_schema.py::test_default_description": (
            "victim", "tests/test_tuning.py::test_override_name"),
        "tests/test_schema.py::test_columns": (
            "victim", "tests/test_tuning.py::test_override_schema"),
    },
    "setup_class_recorder": {
        "tests/test_bus.py::TestBus::test_no_subscriber_no_call": (
            "victim", "tests/test_bus.py::TestBus::test_publish_reaches_a_subscriber"),
    },
    "library_function_stubbed": {
        "tests/test_store.py::test_has_sees_an_existing_file": (
            "victim", "tests/test_store.py::test_ensure_dir_creates_a_missing_directory"),
    },
    "doctest_locale": {
        **{f"units/length.py::units.length.{n}": (
            "victim", "units/length.py::units.length.use_unit") for n in ("unit", "show")},
    },
    "app_config_proxy": {
        "tests/test_pages.py::test_index_title": (
            "victim", "tests/test_pages.py::test_custom_title"),
    },
    "property_mocked": {
        **{f"tests/test_invoice.py::test_{n}": (
            "victim", "tests/test_invoice.py::test_due_when_the_total_is_positive")
           for n in ("total_of_lines", "nothing_due_for_no_lines")},
    },
    "reload_settings_object": {
        "tests/test_client.py::test_attempts_follow_the_settings": (
            "victim", "tests/test_reload.py::test_settings_are_read_from_the_environment"),
    },
    "environ_rebound": {
        "tests/test_build.py::test_release_mode_reaches_the_shell": (
            "victim", "tests/test_tools.py::test_tool_paths_are_added_and_taken_back"),
    },
    "function_attribute_hooks": {
        "tests/test_hooks.py::test_the_final_call_runs_only_the_hook_given": (
            "victim", "tests/test_renew.py::test_a_renewal_saves_its_post_hook"),
    },
}  # fmt: skip


@dataclass
class ProjectRepair:
    """What detect, classify and fix made of one corpus project."""

    name: str
    root: Path
    found: list[str] = field(default_factory=list)  # OD tests the report names
    fixed: dict[str, str] = field(default_factory=dict)  # test -> patch path
    notes: dict[str, list[str]] = field(default_factory=dict)  # unrepaired test -> why
    output: str = ""
    held: bool = False  # the patch set held together ("patch set: ... hold together")
    exit_code: int = -1  # of orderdep fix


def tree_hash(root: Path) -> str:
    """A digest of the project's files (not ``.orderdep/`` nor caches)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        skip = rel.parts[0] == ".orderdep" or "__pycache__" in rel.parts
        if path.is_file() and not skip:
            digest.update(str(rel).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def plain_outcomes(root: Path, orders: list[list[str]], workdir: Path) -> list[dict[str, str]]:
    """Test -> outcome of each order, each run as a fresh ``python -m pytest`` process."""
    runner = PlainRunner(EngineConfig(root), workdir)
    try:
        return [{r.test: r.outcome.value for r in runner.run(order).results} for order in orders]
    finally:
        runner.close()


def repaired_victim(
    root: Path, victim: str, polluter: str, workdir: Path, strategy: Optional[str] = None
) -> dict[str, str]:
    """Repair ``victim`` of ``polluter`` in ``root`` (a ``Repairer`` on the project, all
    strategies unless one is named), write the patch into ``root`` and check it under
    plain pytest: the victim after its polluter, and the two in the other order, all
    pass. The new text of each changed file."""
    finding = ODFinding(victim, "victim", polluters=[polluter])
    orders = [[polluter, victim], [victim, polluter]]
    return repaired(root, finding, orders, workdir, strategy)


def repaired_brittle(root: Path, brittle: str, setter: str, workdir: Path) -> dict[str, str]:
    """Repair ``brittle`` (which passes only after ``setter``) as :func:`repaired_victim`
    does; the check under plain pytest: the brittle alone, and the two in either order."""
    finding = ODFinding(brittle, "brittle", state_setters=[setter])
    return repaired(root, finding, [[brittle], [setter, brittle], [brittle, setter]], workdir)


def repaired(
    root: Path,
    finding: ODFinding,
    orders: list[list[str]],
    workdir: Path,
    strategy: Optional[str] = None,
) -> dict[str, str]:
    from orderdep.analysis.repair.fix import Repairer
    from orderdep.engine.runner import Engine

    with Engine(EngineConfig(root)) as engine:
        repairer = (
            Repairer(engine.config, engine)
            if strategy is None
            else Repairer(engine.config, engine, strategy=strategy)
        )
        result = repairer.repair(finding)
    assert result.fix is not None, result.notes
    new = {path: text for path, (_, text) in result.fix.changes.items()}
    for path, text in new.items():
        (root / path).write_text(text, encoding="utf-8")
    for outcomes in plain_outcomes(root, orders, workdir):
        assert set(outcomes.values()) == {"passed"}, (outcomes, new)
    return new


def fix_and_apply(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str, str]:
    """A copy of corpus project ``name`` after ``detect --classify`` then ``fix --apply``:
    the copy, fix's output and its progress."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    root = copy_project(name, tmp_path / "p")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["detect", str(root), "--classify", "--seed", "1"]) == 1
        start = len(err.getvalue())
        assert main(["fix", str(root), "--apply"]) == 0, out.getvalue()
    return root, out.getvalue(), err.getvalue()[start:]


def copy_project(name: str, dest: Path) -> Path:
    shutil.copytree(
        CORPUS / name, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    return dest


def corpus_fixture(name: str) -> Any:
    """A module-scoped ``project`` fixture: a copy of corpus project ``name`` (the
    ``engine`` fixture of tests/analysis/repair/conftest.py runs on it)."""

    @pytest.fixture(scope="module")
    def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return copy_project(name, tmp_path_factory.mktemp(name) / "proj")

    return project


def repair_project(name: str, dest: Path, *, apply: bool = False) -> ProjectRepair:
    """Copy ``name`` to ``dest``, detect and classify its OD tests, then ``orderdep fix``."""
    root = copy_project(name, dest)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["detect", str(root), "--classify", "--seed", "1"])
        report = json.loads((root / ".orderdep" / "report.json").read_text(encoding="utf-8"))
        code = main(["fix", str(root), *(["--apply"] if apply else [])])
    result = ProjectRepair(name, root, output=out.getvalue(), exit_code=code)
    result.held = any(
        line.startswith("patch set: ") and " hold together " in line
        for line in result.output.splitlines()
    )
    result.found = [f["test"] for f in report.get("od_tests", []) if f.get("kind")]
    fixes = json.loads((root / ".orderdep" / "fixes.json").read_text(encoding="utf-8"))
    for test, entry in fixes["fixes"].items():
        if entry["fixed"]:
            result.fixed[test] = entry["patch"]
        else:
            result.notes[test] = entry["notes"]
    return result
