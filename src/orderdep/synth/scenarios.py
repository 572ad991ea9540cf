"""Planted scenarios beyond one victim per channel: many cleaners, two polluters, a
polluter group, brittles with one, two or a group of state-setters (004 §2), and the
ND, NIO and always-failing tests. Same conventions as :mod:`orderdep.synth.channels`.
"""

from __future__ import annotations

import random

from orderdep.core.odmodel import group_key
from orderdep.synth.channels import RANDOM_CHANNEL
from orderdep.synth.planting import Planting, SpecTemplate, fill, make_case

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
        "victim": make_case(noun, "test_${n}_created_without_subscribers", """
            assert events.publish("$n.created", {"id": 1}) == 0
            """, imp),
        "polluter": make_case(noun, "test_${n}_created_notifies_audit_log", """
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
        tests[role] = make_case(noun, f"test_${{n}}_{phrase}", f"""
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
        location=fill("app.events._HANDLERS['$n.created']", noun),
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
        "victim": make_case(noun, "test_${n}_page_uses_classic_layout", """
            assert flags.layout_for("$n") == "classic"
            """, imp),
        "polluter1": make_case(noun, "test_enable_${n}_beta_layout", """
            flags.enable("$n.beta")
            assert flags.is_enabled("$n.beta")
            """, imp),
        "polluter2": make_case(noun, "test_enable_compact_${n}_layout", """
            flags.enable("$n.compact")
            assert flags.is_enabled("$n.compact")
            """, imp),
        "cleaner1": make_case(noun, "test_disable_${n}_beta_layout", """
            flags.disable("$n.beta")
            assert not flags.is_enabled("$n.beta")
            """, imp),
        "cleaner2": make_case(noun, "test_disable_compact_${n}_layout", """
            flags.disable("$n.compact")
            assert not flags.is_enabled("$n.compact")
            """, imp),
        "cleaner12": make_case(noun, "test_${n}_layout_with_all_flags_off", """
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
        location=fill("app.flags._ENABLED ('$n.beta', '$n.compact')", noun),
        tests=tests,
        specs=[spec],
        chains=[["victim", "polluter1"], ["victim", "polluter2"]],
    )


def polluter_group(noun: str, rng: random.Random) -> Planting:
    """A victim that fails only after both members of a group (two leaked pool leases)."""
    imp = ("from app import pool",)
    tests = {
        "victim": make_case(noun, "test_${n}_checkout_gets_connection", """
            connections = pool.get_pool("$n")
            connections.acquire("checkout")
            connections.release("checkout")
            """, imp),
        "member1": make_case(noun, "test_${n}_nightly_report_uses_connection", """
            lease = pool.get_pool("$n").acquire("nightly_report")
            assert lease.owner == "nightly_report"
            """, imp),
        "member2": make_case(noun, "test_${n}_audit_export_uses_connection", """
            lease = pool.get_pool("$n").acquire("audit_export")
            assert lease.owner == "audit_export"
            """, imp),
        "cleaner": make_case(noun, "test_${n}_pool_reset_releases_leases", """
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
        location=fill("app.pool._POOLS['$n'] (two leases fill it)", noun),
        tests=tests,
        specs=[spec],
        chains=[["victim", "member1"], ["victim", "member2"]],
    )


def brittle_setters(noun: str, rng: random.Random, n_setters: int) -> Planting:
    """A brittle that needs a table any one of ``n_setters`` tests creates."""
    imp = ("from app import db",)
    tests = {
        "brittle": make_case(noun, "test_insert_${n}_row", """
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
        tests[role] = make_case(noun, name, body, imp)
    return Planting(
        scenario="brittle_one_setter" if n_setters == 1 else "brittle_two_setters",
        channel="module_dict",
        location=fill("app.db._TABLES['${n}s']", noun),
        tests=tests,
        specs=[SpecTemplate("brittle", "brittle", state_setters=setters)],
        chains=[["setter1", "brittle"]],
    )


def brittle_setter_group(noun: str, rng: random.Random) -> Planting:
    """A brittle that needs three migrations, each applied by a test, in their order."""
    imp = ("from app import migrations",)
    steps = [f"0001_create_{noun}s", f"0002_add_{noun}_total", f"0003_index_{noun}_total"]
    tests = {
        "brittle": make_case(noun, "test_${n}_totals_report", """
            migrations.require_current("$n")
            assert migrations.applied("$n")[-1] == "0003_index_${n}_total"
            """, imp),
    }  # fmt: skip
    for i, step in enumerate(steps):
        tests[f"setter{i + 1}"] = make_case(noun, f"test_migration_{step}", f"""
            migrations.apply("$n", "{step}")
            assert "{step}" in migrations.PLANS["$n"]
            """, imp)  # fmt: skip
    group = ["setter1", "setter2", "setter3"]
    planting = Planting(
        scenario="brittle_setter_group",
        channel="module_dict",
        location=fill("app.migrations._APPLIED['$n']", noun),
        tests=tests,
        specs=[SpecTemplate("brittle", "brittle", state_setter_groups=[group])],
        chains=[[*group, "brittle"]],
    )
    quoted = "".join(f'    "{step}",\n' for step in steps)
    planting.app.append(("migrations", f'PLANS["{noun}"] = (\n{quoted})'))
    return planting


def nondeterministic(noun: str, rng: random.Random) -> Planting:
    """A test that fails at random (the balancer picks a replica), whatever ran before."""
    test = make_case(noun, "test_${n}_read_after_write_hits_primary", """
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
    test = make_case(noun, "test_install_${n}_export_extension", """
        extensions.install("$n-export")
        assert "$n-export" in extensions.installed()
        """, ("from app import extensions",))  # fmt: skip
    return Planting(
        scenario="nio",
        channel="module_dict",
        location=fill("app.extensions._INSTALLED['$n-export']", noun),
        tests={"nio": test},
        nio=["nio"],
    )


def always_failing(noun: str, rng: random.Random) -> Planting:
    """A test that fails in every order (a real rounding bug in the app)."""
    test = make_case(noun, "test_split_${n}_total_evenly", """
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
