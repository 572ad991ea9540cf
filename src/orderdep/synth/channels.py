"""Building blocks of generated suites: the app modules and the planted scenarios.

Each scenario builder returns a :class:`Planting`: the test functions it needs (by role),
the app code they exercise, the order constraints that keep the original order passing,
and the ground truth as :class:`SpecTemplate` over roles. Every planting owns its piece of
state (a dict key, an env var, a file, a cached function, ...) and no other test touches
it, so the specs are exact: in a real run a test fails exactly when
:func:`orderdep.core.odmodel.fails` says so.

Code is written with :class:`string.Template` placeholders so the generated Python keeps
its own braces: ``$n`` is the planting's noun (``invoice``), ``$N`` its upper case form and
``$C`` its class-name form.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field
from string import Template
from typing import Callable

from orderdep.core.odmodel import Kind, group_key

# Victim channels: where the polluted state lives.
CHANNELS: tuple[str, ...] = (
    "module_dict",
    "class_attr",
    "env_var",
    "project_file",
    "lru_cache",
    "test_module_global",
    "home_file",
    "cwd",
    "sys_path",
    "sys_modules",
    "session_fixture",
    "module_fixture",
)
# Channels with one process-wide cell (every polluter breaks every victim): planted once.
SINGLE_CELL_CHANNELS = frozenset({"cwd"})
RANDOM_CHANNEL = "random"

NOUNS: tuple[str, ...] = (
    "invoice", "customer", "order", "coupon", "shipment", "refund", "warehouse",
    "supplier", "payment", "ticket", "booking", "report", "profile", "product",
    "voucher", "parcel", "receipt", "budget", "ledger", "review", "badge", "course",
    "lesson", "member", "project", "release", "route", "schedule", "survey", "tenant",
    "upload", "vendor", "webhook", "wishlist", "account", "address", "album", "contract",
    "device", "estimate",
)  # fmt: skip


@dataclass
class TestCase:
    """One generated test function; ``body`` is unindented source."""

    __test__ = False

    name: str
    body: str
    imports: frozenset[str] = frozenset()
    fixtures: tuple[str, ...] = ()
    # (key, code) module-level code this test needs in its own module (globals, fixtures)
    preludes: tuple[tuple[str, str], ...] = ()


@dataclass
class SpecTemplate:
    """An :class:`~orderdep.core.odmodel.ODSpec` over roles instead of node ids."""

    test: str
    kind: Kind
    polluters: list[str] = field(default_factory=list)
    polluter_groups: list[list[str]] = field(default_factory=list)
    cleaners: dict[str, list[str]] = field(default_factory=dict)  # role or group_key(roles)
    state_setters: list[str] = field(default_factory=list)
    state_setter_groups: list[list[str]] = field(default_factory=list)
    # A module-scoped fixture is rebuilt after any test of another module ran in between.
    cleaned_by_other_modules: bool = False


@dataclass
class Planting:
    """One planted scenario: its tests by role, app code, order constraints, ground truth."""

    scenario: str
    channel: str
    location: str  # where the state lives, for people and repair benchmarks
    tests: dict[str, TestCase]
    specs: list[SpecTemplate] = field(default_factory=list)
    chains: list[list[str]] = field(default_factory=list)  # roles in required original order
    same_module: list[str] = field(default_factory=list)  # roles that share one test module
    app: list[tuple[str, str]] = field(default_factory=list)  # (app module, code snippet)
    conftest: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # extra project files
    nd: list[str] = field(default_factory=list)
    nio: list[str] = field(default_factory=list)
    always_failing: list[str] = field(default_factory=list)


def _sub(text: str, noun: str) -> str:
    return Template(textwrap.dedent(text).strip("\n")).substitute(
        n=noun, N=noun.upper(), C=noun[:1].upper() + noun[1:]
    )


def _case(
    noun: str,
    name: str,
    body: str,
    imports: tuple[str, ...] = (),
    fixtures: tuple[str, ...] = (),
    preludes: tuple[tuple[str, str], ...] = (),
) -> TestCase:
    return TestCase(
        name=_sub(name, noun),
        body=_sub(body, noun),
        imports=frozenset(_sub(i, noun) for i in imports),
        fixtures=tuple(_sub(f, noun) for f in fixtures),
        preludes=tuple((_sub(k, noun), _sub(code, noun)) for k, code in preludes),
    )


def _simple(
    channel: str,
    location: str,
    noun: str,
    victim: TestCase,
    polluter: TestCase,
    cleaner: TestCase | None,
    polluter_first: bool,
    same_module: bool = False,
    cleaned_by_other_modules: bool = False,
) -> Planting:
    """A victim, its polluter and optionally one cleaner.

    The victim comes before the polluter in the original order, unless ``polluter_first``
    (then the original order fails: polluter, victim, and the cleaner only after them).
    """
    tests = {"victim": victim, "polluter": polluter}
    if cleaner is not None:
        tests["cleaner"] = cleaner
    spec = SpecTemplate(
        "victim",
        "victim",
        polluters=["polluter"],
        cleaners={"polluter": ["cleaner"]} if cleaner is not None else {},
        cleaned_by_other_modules=cleaned_by_other_modules,
    )
    if polluter_first:
        chain = ["polluter", "victim"] + (["cleaner"] if cleaner is not None else [])
    else:
        chain = ["victim", "polluter"]
    return Planting(
        scenario="channel",
        channel=channel,
        location=_sub(location, noun),
        tests=tests,
        specs=[spec],
        chains=[chain],
        same_module=list(tests) if same_module else [],
    )


# --- victim channels ------------------------------------------------------------------


def module_dict(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import registry",)
    return _simple(
        "module_dict",
        "app.registry._ENTRIES['$n.export']",
        noun,
        _case(noun, "test_no_${n}_exporter_by_default", """
            assert registry.lookup("$n.export") is None
            """, imp),
        _case(noun, "test_register_${n}_exporter", """
            registry.register("$n.export", lambda rows: len(rows), replace=True)
            assert registry.lookup("$n.export")([1, 2, 3]) == 3
            """, imp),
        _case(noun, "test_unregister_${n}_exporter", """
            registry.register("$n.export", len, replace=True)
            registry.unregister("$n.export")
            assert "$n.export" not in registry.names()
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def class_attr(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import models",)
    planting = _simple(
        "class_attr",
        "app.models.$C.currency",
        noun,
        _case(noun, "test_${n}_label_in_euro", """
            assert models.$C(1250).label() == "12.50 EUR"
            """, imp),
        _case(noun, "test_${n}_label_for_us_store", """
            models.$C.currency = "USD"
            assert models.$C(99).label() == "0.99 USD"
            """, imp),
        _case(noun, "test_${n}_label_for_eu_store", """
            models.$C.currency = "EUR"
            assert models.$C(500).label() == "5.00 EUR"
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "models",
            _sub(
                '''
        class $C:
            """A $n amount shown in the store's currency."""

            currency = "EUR"

            def __init__(self, amount_cents: int) -> None:
                self.amount_cents = amount_cents

            def label(self) -> str:
                return f"{self.amount_cents / 100:.2f} {self.currency}"
        ''',
                noun,
            ),
        )
    )
    return planting


def env_var(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    default = rng.choice((25, 50, 100))
    override = rng.choice((5, 10, 15))
    imp = ("from app import config",)
    imp_os = ("import os", "from app import config")
    planting = _simple(
        "env_var",
        "os.environ['APP_${N}_LIMIT']",
        noun,
        _case(noun, "test_default_${n}_limit", f"""
            assert config.${{n}}_limit() == {default}
            """, imp),
        _case(noun, "test_${n}_limit_from_environment", f"""
            os.environ["APP_${{N}}_LIMIT"] = "{override}"
            assert config.${{n}}_limit() == {override}
            """, imp_os),
        _case(noun, "test_${n}_limit_without_override", f"""
            os.environ.pop("APP_${{N}}_LIMIT", None)
            assert config.${{n}}_limit() == {default}
            """, imp_os) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "config",
            _sub(
                f'''
        def ${{n}}_limit() -> int:
            """How many ${{n}}s one page lists."""
            return get_int("${{N}}_LIMIT", {default})
        ''',
                noun,
            ),
        )
    )
    return planting


def project_file(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import storage",)
    return _simple(
        "project_file",
        "file $$APP_DATA_DIR/${n}_draft.json (under the project's .testdata/)",
        noun,
        _case(noun, "test_no_saved_${n}_draft", """
            assert storage.load("${n}_draft") is None
            """, imp),
        _case(noun, "test_save_${n}_draft", """
            path = storage.save("${n}_draft", {"lines": 3})
            assert path.exists()
            """, imp),
        _case(noun, "test_discard_${n}_draft", """
            storage.delete("${n}_draft")
            assert storage.load("${n}_draft") is None
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def lru_cache(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import pricing",)
    planting = _simple(
        "lru_cache",
        "functools.lru_cache of app.pricing.${n}_rate",
        noun,
        _case(noun, "test_${n}_express_rate", """
            assert pricing.${n}_rate("express") == 2.5
            """, imp),
        _case(noun, "test_${n}_promotional_express_rate", """
            monkeypatch.setitem(pricing._${N}_RATES, "express", 1.5)
            pricing.${n}_rate.cache_clear()
            assert pricing.${n}_rate("express") == 1.5
            """, imp, ("monkeypatch",)),
        _case(noun, "test_${n}_rates_reload", """
            pricing.${n}_rate.cache_clear()
            assert pricing.${n}_rate("standard") == 1.0
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "pricing",
            _sub(
                '''
        _${N}_RATES: dict[str, float] = {"standard": 1.0, "express": 2.5}


        @functools.lru_cache(maxsize=128)
        def ${n}_rate(tier: str) -> float:
            """Price multiplier for shipping a $n at ``tier``."""
            return _${N}_RATES[tier]
        ''',
                noun,
            ),
        )
    )
    return planting


def test_module_global(
    noun: str, rng: random.Random, cleaner: bool, polluter_first: bool
) -> Planting:
    imp = ("from app import listutil",)
    prelude = (("_${n}_listing", '_${n}_listing = {"page_size": 20}'),)
    return _simple(
        "test_module_global",
        "test-module global _${n}_listing",
        noun,
        _case(noun, "test_${n}_listing_pages", """
            pages = listutil.chunked(list(range(45)), _${n}_listing["page_size"])
            assert len(pages) == 3
            """, imp, preludes=prelude),
        _case(noun, "test_${n}_listing_small_pages", """
            _${n}_listing["page_size"] = 10
            pages = listutil.chunked(list(range(45)), _${n}_listing["page_size"])
            assert len(pages) == 5
            """, imp, preludes=prelude),
        _case(noun, "test_${n}_listing_default_page_size", """
            _${n}_listing["page_size"] = 20
            pages = listutil.chunked(list(range(20)), _${n}_listing["page_size"])
            assert pages == [list(range(20))]
            """, imp, preludes=prelude) if cleaner else None,
        polluter_first,
        same_module=True,
    )  # fmt: skip


def home_file(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import userprefs",)
    return _simple(
        "home_file",
        "key ${n}_view of ~/.app/prefs.json",
        noun,
        _case(noun, "test_${n}_view_defaults_to_list", """
            assert userprefs.get_pref("${n}_view", "list") == "list"
            """, imp),
        _case(noun, "test_remember_${n}_view", """
            userprefs.set_pref("${n}_view", "grid")
            assert userprefs.get_pref("${n}_view") == "grid"
            """, imp),
        _case(noun, "test_forget_${n}_view", """
            userprefs.clear_pref("${n}_view")
            assert userprefs.get_pref("${n}_view") is None
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def cwd(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    # No cleaner: nothing in the suite changes the working directory back.
    planting = _simple(
        "cwd",
        "the process's working directory (templates/ is read relative to it)",
        noun,
        _case(noun, "test_render_${n}_ready_message", """
            text = templates.render("${n}_ready.txt", name="Ada")
            assert text.strip() == "Dear Ada, your $n is ready."
            """, ("from app import templates",)),
        _case(noun, "test_export_${n}_rows", """
            path = export.export_rows([["id", "total"], [1, 250]], tmp_path / "out")
            assert path.read_text(encoding="utf-8").splitlines()[0] == "id,total"
            """, ("from app import export",), ("tmp_path",)),
        None,
        polluter_first,
    )  # fmt: skip
    planting.files[f"templates/{noun}_ready.txt"] = _sub("Dear {name}, your $n is ready.\n", noun)
    return planting


def sys_path(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import plugins",)
    return _simple(
        "sys_path",
        "sys.path (a directory providing appext_${n})",
        noun,
        _case(noun, "test_${n}_plugin_not_installed", """
            assert not plugins.is_available("appext_${n}")
            """, imp),
        _case(noun, "test_load_${n}_plugin_from_directory", """
            (tmp_path / "appext_${n}.py").write_text("NAME = '$n'\\n")
            plugins.add_plugin_dir(tmp_path)
            assert plugins.is_available("appext_${n}")
            """, imp, ("tmp_path",)),
        None,
        polluter_first,
    )  # fmt: skip


def sys_modules(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("import sys", "from app import serializers")
    return _simple(
        "sys_modules",
        "sys.modules['${n}_speedups']",
        noun,
        _case(noun, "test_${n}_encoder_backend", """
            assert serializers.backend("$n") == "pure-python"
            """, ("from app import serializers",)),
        _case(noun, "test_${n}_encoder_uses_speedups", """
            sys.modules["${n}_speedups"] = types.ModuleType("${n}_speedups")
            assert serializers.backend("$n") == "native"
            """, (*imp, "import types")),
        _case(noun, "test_${n}_encoder_without_speedups", """
            sys.modules.pop("${n}_speedups", None)
            assert serializers.backend("$n") == "pure-python"
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def session_fixture(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    fx = ("${n}_catalog",)
    planting = _simple(
        "session_fixture",
        "session-scoped fixture ${n}_catalog (tests/conftest.py)",
        noun,
        _case(noun, "test_${n}_catalog_lists_standard_plans", """
            assert ${n}_catalog.names() == ["basic", "plus", "pro"]
            """, fixtures=fx),
        _case(noun, "test_${n}_catalog_add_enterprise_plan", """
            ${n}_catalog.add("enterprise")
            assert "enterprise" in ${n}_catalog.names()
            """, fixtures=fx),
        _case(noun, "test_${n}_catalog_discontinue_enterprise", """
            ${n}_catalog.discard("enterprise")
            assert "enterprise" not in ${n}_catalog.names()
            """, fixtures=fx) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.conftest.append(
        _sub(
            """
        @pytest.fixture(scope="session")
        def ${n}_catalog() -> catalog.Catalog:
            return catalog.Catalog(["basic", "plus", "pro"])
        """,
            noun,
        )
    )
    return planting


def module_fixture(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    fx = ("${n}_cart",)
    prelude = (
        (
            "${n}_cart",
            """
        @pytest.fixture(scope="module")
        def ${n}_cart() -> cart.Cart:
            return cart.Cart()
        """,
        ),
    )
    imp = ("import pytest", "from app import cart")
    return _simple(
        "module_fixture",
        "module-scoped fixture ${n}_cart",
        noun,
        _case(noun, "test_${n}_cart_starts_empty", """
            assert ${n}_cart.count() == 0
            """, imp, fx, prelude),
        _case(noun, "test_${n}_cart_add_items", """
            ${n}_cart.add("sku-1", 2)
            assert ${n}_cart.count() >= 2
            """, imp, fx, prelude),
        _case(noun, "test_${n}_cart_clear", """
            ${n}_cart.clear()
            assert ${n}_cart.count() == 0
            """, imp, fx, prelude) if cleaner else None,
        polluter_first,
        same_module=True,
        cleaned_by_other_modules=True,
    )  # fmt: skip


ChannelBuilder = Callable[[str, random.Random, bool, bool], Planting]
CHANNEL_BUILDERS: dict[str, ChannelBuilder] = {
    "module_dict": module_dict,
    "class_attr": class_attr,
    "env_var": env_var,
    "project_file": project_file,
    "lru_cache": lru_cache,
    "test_module_global": test_module_global,
    "home_file": home_file,
    "cwd": cwd,
    "sys_path": sys_path,
    "sys_modules": sys_modules,
    "session_fixture": session_fixture,
    "module_fixture": module_fixture,
}
# Channels whose planting never has a cleaner test.
CHANNELS_WITHOUT_CLEANERS = frozenset({"cwd", "sys_path"})


# --- structural scenarios -------------------------------------------------------------

_CLEANER_PHRASES = (
    "handler_receives_payload",
    "delivers_to_each_handler_once",
    "handlers_can_be_replaced",
    "publish_counts_deliveries",
    "late_subscriber_gets_next_event",
    "handler_sees_payload_copy",
    "resubscribe_after_reset",
    "single_handler_roundtrip",
)


def many_cleaners(noun: str, rng: random.Random, n_cleaners: int) -> Planting:
    """A victim whose state (subscribers of one event topic) many tests reset."""
    imp = ("from app import events",)
    tests = {
        "victim": _case(noun, "test_${n}_created_without_subscribers", """
            assert events.publish("$n.created", {"id": 1}) == 0
            """, imp),
        "polluter": _case(noun, "test_${n}_created_notifies_audit_log", """
            audit_log = []
            events.subscribe("$n.created", audit_log.append)
            events.publish("$n.created", {"id": 7})
            assert {"id": 7} in audit_log
            """, imp),
    }  # fmt: skip
    phrases = rng.sample(_CLEANER_PHRASES, min(n_cleaners, len(_CLEANER_PHRASES)))
    cleaners = []
    for i in range(n_cleaners):
        phrase = phrases[i % len(phrases)] + (
            f"_{i // len(phrases) + 1}" if i >= len(phrases) else ""
        )
        role = f"cleaner{i + 1}"
        cleaners.append(role)
        tests[role] = _case(noun, f"test_${{n}}_{phrase}", f"""
            events.unsubscribe_all("$n.created")
            received = []
            events.subscribe("$n.created", received.append)
            assert events.publish("$n.created", {{"id": {i + 2}}}) == 1
            assert received == [{{"id": {i + 2}}}]
            events.unsubscribe_all("$n.created")
            """, imp)  # fmt: skip
    return Planting(
        scenario="many_cleaners",
        channel="module_dict",
        location=_sub("app.events._HANDLERS['$n.created']", noun),
        tests=tests,
        specs=[
            SpecTemplate(
                "victim", "victim", polluters=["polluter"], cleaners={"polluter": cleaners}
            )
        ],
        chains=[["victim", "polluter"]],
    )


def two_polluters(noun: str, rng: random.Random) -> Planting:
    """A victim with two polluters (two feature flags) and different cleaner sets."""
    imp = ("from app import flags",)
    tests = {
        "victim": _case(noun, "test_${n}_page_uses_classic_layout", """
            assert flags.layout_for("$n") == "classic"
            """, imp),
        "polluter1": _case(noun, "test_enable_${n}_beta_layout", """
            flags.enable("$n.beta")
            assert flags.is_enabled("$n.beta")
            """, imp),
        "polluter2": _case(noun, "test_enable_compact_${n}_layout", """
            flags.enable("$n.compact")
            assert flags.is_enabled("$n.compact")
            """, imp),
        "cleaner1": _case(noun, "test_disable_${n}_beta_layout", """
            flags.disable("$n.beta")
            assert not flags.is_enabled("$n.beta")
            """, imp),
        "cleaner2": _case(noun, "test_disable_compact_${n}_layout", """
            flags.disable("$n.compact")
            assert not flags.is_enabled("$n.compact")
            """, imp),
        "cleaner12": _case(noun, "test_${n}_layout_with_all_flags_off", """
            flags.disable("$n.beta")
            flags.disable("$n.compact")
            assert flags.layout_for("$n") == "classic"
            """, imp),
    }  # fmt: skip
    spec = SpecTemplate(
        "victim",
        "victim",
        polluters=["polluter1", "polluter2"],
        cleaners={"polluter1": ["cleaner1", "cleaner12"], "polluter2": ["cleaner2", "cleaner12"]},
    )
    return Planting(
        scenario="two_polluters",
        channel="module_dict",
        location=_sub("app.flags._ENABLED ('$n.beta', '$n.compact')", noun),
        tests=tests,
        specs=[spec],
        chains=[["victim", "polluter1"], ["victim", "polluter2"]],
    )


def polluter_group(noun: str, rng: random.Random) -> Planting:
    """A victim that fails only after both members of a group (two leaked pool leases)."""
    imp = ("from app import pool",)
    tests = {
        "victim": _case(noun, "test_${n}_checkout_gets_connection", """
            connections = pool.get_pool("$n")
            connections.acquire("checkout")
            connections.release("checkout")
            """, imp),
        "member1": _case(noun, "test_${n}_nightly_report_uses_connection", """
            lease = pool.get_pool("$n").acquire("nightly_report")
            assert lease.owner == "nightly_report"
            """, imp),
        "member2": _case(noun, "test_${n}_audit_export_uses_connection", """
            lease = pool.get_pool("$n").acquire("audit_export")
            assert lease.owner == "audit_export"
            """, imp),
        "cleaner": _case(noun, "test_${n}_pool_reset_releases_leases", """
            connections = pool.get_pool("$n")
            connections.reset()
            assert connections.in_use() == 0
            """, imp),
    }  # fmt: skip
    members = ["member1", "member2"]
    spec = SpecTemplate(
        "victim", "victim", polluter_groups=[members], cleaners={group_key(members): ["cleaner"]}
    )
    return Planting(
        scenario="polluter_group",
        channel="module_dict",
        location=_sub("app.pool._POOLS['$n'] (two leases fill it)", noun),
        tests=tests,
        specs=[spec],
        chains=[["victim", "member1"], ["victim", "member2"]],
    )


def brittle_setters(noun: str, rng: random.Random, n_setters: int) -> Planting:
    """A brittle that needs a table any one of ``n_setters`` tests creates."""
    imp = ("from app import db",)
    tests = {
        "brittle": _case(noun, "test_insert_${n}_row", """
            row_id = db.insert("${n}s", {"total": 250})
            assert db.fetch("${n}s", row_id) == {"total": 250}
            """, imp),
    }  # fmt: skip
    setter_bodies = [
        ("test_create_${n}_table", """
            db.create_table("${n}s")
            assert "${n}s" in db.tables()
            """),
        ("test_${n}_schema_setup", """
            db.ensure_tables(["${n}s", "${n}_lines"])
            assert {"${n}s", "${n}_lines"} <= set(db.tables())
            """),
    ]  # fmt: skip
    setters = []
    for i in range(n_setters):
        name, body = setter_bodies[i % len(setter_bodies)]
        if i >= len(setter_bodies):
            name += f"_{i}"
        role = f"setter{i + 1}"
        setters.append(role)
        tests[role] = _case(noun, name, body, imp)
    return Planting(
        scenario="brittle_one_setter" if n_setters == 1 else "brittle_two_setters",
        channel="module_dict",
        location=_sub("app.db._TABLES['${n}s']", noun),
        tests=tests,
        specs=[SpecTemplate("brittle", "brittle", state_setters=setters)],
        chains=[["setter1", "brittle"]],
    )


def brittle_setter_group(noun: str, rng: random.Random) -> Planting:
    """A brittle that needs three migrations, each applied by a test, in their order."""
    imp = ("from app import migrations",)
    steps = [f"0001_create_{noun}s", f"0002_add_{noun}_total", f"0003_index_{noun}_total"]
    tests = {
        "brittle": _case(noun, "test_${n}_totals_report", """
            migrations.require_current("$n")
            assert migrations.applied("$n")[-1] == "0003_index_${n}_total"
            """, imp),
    }  # fmt: skip
    for i, step in enumerate(steps):
        tests[f"setter{i + 1}"] = _case(noun, f"test_migration_{step}", f"""
            migrations.apply("$n", "{step}")
            assert "{step}" in migrations.PLANS["$n"]
            """, imp)  # fmt: skip
    group = ["setter1", "setter2", "setter3"]
    planting = Planting(
        scenario="brittle_setter_group",
        channel="module_dict",
        location=_sub("app.migrations._APPLIED['$n']", noun),
        tests=tests,
        specs=[SpecTemplate("brittle", "brittle", state_setter_groups=[group])],
        chains=[[*group, "brittle"]],
    )
    quoted = "".join(f'    "{step}",\n' for step in steps)
    planting.app.append(("migrations", f'PLANS["{noun}"] = (\n{quoted})'))
    return planting


def nondeterministic(noun: str, rng: random.Random) -> Planting:
    """A test that fails at random (the balancer picks a replica), whatever ran before."""
    test = _case(noun, "test_${n}_read_after_write_hits_primary", """
        assert balancer.choose_node() == "primary"
        """, ("from app import balancer",))  # fmt: skip
    return Planting(
        scenario="nd",
        channel=RANDOM_CHANNEL,
        location="random.SystemRandom in app.balancer",
        tests={"nd": test},
        nd=["nd"],
    )


def non_idempotent(noun: str, rng: random.Random) -> Planting:
    """A test that passes once per process and fails when it runs again (installs twice)."""
    test = _case(noun, "test_install_${n}_export_extension", """
        extensions.install("$n-export")
        assert "$n-export" in extensions.installed()
        """, ("from app import extensions",))  # fmt: skip
    return Planting(
        scenario="nio",
        channel="module_dict",
        location=_sub("app.extensions._INSTALLED['$n-export']", noun),
        tests={"nio": test},
        nio=["nio"],
    )


def always_failing(noun: str, rng: random.Random) -> Planting:
    """A test that fails in every order (a real rounding bug in the app)."""
    test = _case(noun, "test_split_${n}_total_evenly", """
        shares = money.split_evenly(1000, 3)
        assert sum(shares) == 1000
        """, ("from app import money",))  # fmt: skip
    return Planting(
        scenario="always_failing",
        channel="none",
        location="app.money.split_evenly drops the remainder",
        tests={"failing": test},
        always_failing=["failing"],
    )
