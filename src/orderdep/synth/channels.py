"""Victim channels of generated suites: one builder per place polluted state can live.

Each builder here and in :mod:`orderdep.synth.scenarios` returns a :class:`Planting`: the test functions it needs (by role),
the app code they exercise, the order constraints that keep the original order passing,
and the ground truth as :class:`SpecTemplate` over roles. Every planting owns its piece of
state (a dict key, an env var, a file, a cached function, ...) and no other test touches
it, so the specs are exact: in a real run a test fails exactly when
:func:`orderdep.core.odmodel.fails` says so.

The types (:class:`~orderdep.synth.planting.Planting` ...) are in
:mod:`orderdep.synth.planting`.
"""

from __future__ import annotations

import random
from typing import Callable

from orderdep.synth.planting import (
    Planting,
    fill,
    make_case,
    simple_planting,
)

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


# --- victim channels ------------------------------------------------------------------


def module_dict(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import registry",)
    return simple_planting(
        "module_dict",
        "app.registry._ENTRIES['$n.export']",
        noun,
        make_case(noun, "test_no_${n}_exporter_by_default", """
            assert registry.lookup("$n.export") is None
            """, imp),
        make_case(noun, "test_register_${n}_exporter", """
            registry.register("$n.export", lambda rows: len(rows), replace=True)
            assert registry.lookup("$n.export")([1, 2, 3]) == 3
            """, imp),
        make_case(noun, "test_unregister_${n}_exporter", """
            registry.register("$n.export", len, replace=True)
            registry.unregister("$n.export")
            assert "$n.export" not in registry.names()
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def class_attr(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import models",)
    planting = simple_planting(
        "class_attr",
        "app.models.$C.currency",
        noun,
        make_case(noun, "test_${n}_label_in_euro", """
            assert models.$C(1250).label() == "12.50 EUR"
            """, imp),
        make_case(noun, "test_${n}_label_for_us_store", """
            models.$C.currency = "USD"
            assert models.$C(99).label() == "0.99 USD"
            """, imp),
        make_case(noun, "test_${n}_label_for_eu_store", """
            models.$C.currency = "EUR"
            assert models.$C(500).label() == "5.00 EUR"
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "models",
            fill(
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
    planting = simple_planting(
        "env_var",
        "os.environ['APP_${N}_LIMIT']",
        noun,
        make_case(noun, "test_default_${n}_limit", f"""
            assert config.${{n}}_limit() == {default}
            """, imp),
        make_case(noun, "test_${n}_limit_from_environment", f"""
            os.environ["APP_${{N}}_LIMIT"] = "{override}"
            assert config.${{n}}_limit() == {override}
            """, imp_os),
        make_case(noun, "test_${n}_limit_without_override", f"""
            os.environ.pop("APP_${{N}}_LIMIT", None)
            assert config.${{n}}_limit() == {default}
            """, imp_os) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "config",
            fill(
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
    return simple_planting(
        "project_file",
        "file $$APP_DATA_DIR/${n}_draft.json (under the project's .testdata/)",
        noun,
        make_case(noun, "test_no_saved_${n}_draft", """
            assert storage.load("${n}_draft") is None
            """, imp),
        make_case(noun, "test_save_${n}_draft", """
            path = storage.save("${n}_draft", {"lines": 3})
            assert path.exists()
            """, imp),
        make_case(noun, "test_discard_${n}_draft", """
            storage.delete("${n}_draft")
            assert storage.load("${n}_draft") is None
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def lru_cache(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import pricing",)
    planting = simple_planting(
        "lru_cache",
        "functools.lru_cache of app.pricing.${n}_rate",
        noun,
        make_case(noun, "test_${n}_express_rate", """
            assert pricing.${n}_rate("express") == 2.5
            """, imp),
        make_case(noun, "test_${n}_promotional_express_rate", """
            monkeypatch.setitem(pricing._${N}_RATES, "express", 1.5)
            pricing.${n}_rate.cache_clear()
            assert pricing.${n}_rate("express") == 1.5
            """, imp, ("monkeypatch",)),
        make_case(noun, "test_${n}_rates_reload", """
            pricing.${n}_rate.cache_clear()
            assert pricing.${n}_rate("standard") == 1.0
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.app.append(
        (
            "pricing",
            fill(
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
    return simple_planting(
        "test_module_global",
        "test-module global _${n}_listing",
        noun,
        make_case(noun, "test_${n}_listing_pages", """
            pages = listutil.chunked(list(range(45)), _${n}_listing["page_size"])
            assert len(pages) == 3
            """, imp, preludes=prelude),
        make_case(noun, "test_${n}_listing_small_pages", """
            _${n}_listing["page_size"] = 10
            pages = listutil.chunked(list(range(45)), _${n}_listing["page_size"])
            assert len(pages) == 5
            """, imp, preludes=prelude),
        make_case(noun, "test_${n}_listing_default_page_size", """
            _${n}_listing["page_size"] = 20
            pages = listutil.chunked(list(range(20)), _${n}_listing["page_size"])
            assert pages == [list(range(20))]
            """, imp, preludes=prelude) if cleaner else None,
        polluter_first,
        same_module=True,
    )  # fmt: skip


def home_file(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import userprefs",)
    return simple_planting(
        "home_file",
        "key ${n}_view of ~/.app/prefs.json",
        noun,
        make_case(noun, "test_${n}_view_defaults_to_list", """
            assert userprefs.get_pref("${n}_view", "list") == "list"
            """, imp),
        make_case(noun, "test_remember_${n}_view", """
            userprefs.set_pref("${n}_view", "grid")
            assert userprefs.get_pref("${n}_view") == "grid"
            """, imp),
        make_case(noun, "test_forget_${n}_view", """
            userprefs.clear_pref("${n}_view")
            assert userprefs.get_pref("${n}_view") is None
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def cwd(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    # No cleaner: nothing in the suite changes the working directory back.
    planting = simple_planting(
        "cwd",
        "the process's working directory (templates/ is read relative to it)",
        noun,
        make_case(noun, "test_render_${n}_ready_message", """
            text = templates.render("${n}_ready.txt", name="Ada")
            assert text.strip() == "Dear Ada, your $n is ready."
            """, ("from app import templates",)),
        make_case(noun, "test_export_${n}_rows", """
            path = export.export_rows([["id", "total"], [1, 250]], tmp_path / "out")
            assert path.read_text(encoding="utf-8").splitlines()[0] == "id,total"
            """, ("from app import export",), ("tmp_path",)),
        None,
        polluter_first,
    )  # fmt: skip
    planting.files[f"templates/{noun}_ready.txt"] = fill("Dear {name}, your $n is ready.\n", noun)
    return planting


def sys_path(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("from app import plugins",)
    return simple_planting(
        "sys_path",
        "sys.path (a directory providing appext_${n})",
        noun,
        make_case(noun, "test_${n}_plugin_not_installed", """
            assert not plugins.is_available("appext_${n}")
            """, imp),
        make_case(noun, "test_load_${n}_plugin_from_directory", """
            (tmp_path / "appext_${n}.py").write_text("NAME = '$n'\\n")
            plugins.add_plugin_dir(tmp_path)
            assert plugins.is_available("appext_${n}")
            """, imp, ("tmp_path",)),
        None,
        polluter_first,
    )  # fmt: skip


def sys_modules(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    imp = ("import sys", "from app import serializers")
    return simple_planting(
        "sys_modules",
        "sys.modules['${n}_speedups']",
        noun,
        make_case(noun, "test_${n}_encoder_backend", """
            assert serializers.backend("$n") == "pure-python"
            """, ("from app import serializers",)),
        make_case(noun, "test_${n}_encoder_uses_speedups", """
            sys.modules["${n}_speedups"] = types.ModuleType("${n}_speedups")
            assert serializers.backend("$n") == "native"
            """, (*imp, "import types")),
        make_case(noun, "test_${n}_encoder_without_speedups", """
            sys.modules.pop("${n}_speedups", None)
            assert serializers.backend("$n") == "pure-python"
            """, imp) if cleaner else None,
        polluter_first,
    )  # fmt: skip


def session_fixture(noun: str, rng: random.Random, cleaner: bool, polluter_first: bool) -> Planting:
    fx = ("${n}_catalog",)
    planting = simple_planting(
        "session_fixture",
        "session-scoped fixture ${n}_catalog (tests/conftest.py)",
        noun,
        make_case(noun, "test_${n}_catalog_lists_standard_plans", """
            assert ${n}_catalog.names() == ["basic", "plus", "pro"]
            """, fixtures=fx),
        make_case(noun, "test_${n}_catalog_add_enterprise_plan", """
            ${n}_catalog.add("enterprise")
            assert "enterprise" in ${n}_catalog.names()
            """, fixtures=fx),
        make_case(noun, "test_${n}_catalog_discontinue_enterprise", """
            ${n}_catalog.discard("enterprise")
            assert "enterprise" not in ${n}_catalog.names()
            """, fixtures=fx) if cleaner else None,
        polluter_first,
    )  # fmt: skip
    planting.conftest.append(
        fill(
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
    return simple_planting(
        "module_fixture",
        "module-scoped fixture ${n}_cart",
        noun,
        make_case(noun, "test_${n}_cart_starts_empty", """
            assert ${n}_cart.count() == 0
            """, imp, fx, prelude),
        make_case(noun, "test_${n}_cart_add_items", """
            ${n}_cart.add("sku-1", 2)
            assert ${n}_cart.count() >= 2
            """, imp, fx, prelude),
        make_case(noun, "test_${n}_cart_clear", """
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
