"""The ``orderdep`` pytest plugin (entry point ``pytest11``).

Idle and cheap unless one of its ``--orderdep-*`` options (or the ``orderdep_deps`` ini
setting) is given: this module only registers options and imports nothing of orderdep.
The work lives in :mod:`orderdep.shells.plugin_deps`, imported when an option is set:

* ``--orderdep-deps FILE``: every run's final order satisfies the dependencies file
  (002 §3.2 ``enhanceOrder``), after any reordering or deselection by other plugins;
  missing state-setters are added back. The header says what changed.
  Entries naming tests the suite no longer has are skipped with a one-line warning
  (``--orderdep-deps-strict`` or ``orderdep_deps_strict = true``: a usage error).
* ``--orderdep-shards K --orderdep-shard I``: run machine I's share (1..K) of a
  dependency-aware split, each dependency group whole on one machine.
* under pytest-xdist, a scheduler that keeps each dependency group on one worker.

Always (unless ``orderdep_record_last = false``): :mod:`orderdep.shells.plugin_last`
records each run's executed order in pytest's cache for ``orderdep why TEST --last``.
"""

from __future__ import annotations

import argparse

import pytest

#: More shards than this would not fit in memory (and no suite needs them).
MAX_SHARDS = 10_000


def _positive_int(text: str) -> int:
    """argparse ``type=`` for counts and indices: names the bad value and the range."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {MAX_SHARDS}, got {text!r}"
        )
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("orderdep", "order-dependent tests (orderdep)")
    group.addoption(
        "--orderdep-deps",
        dest="orderdep_deps",
        default=None,
        metavar="FILE",
        help="orderdep.deps/1 file: make every test order satisfy these dependencies "
        "(adds missing state-setters, moves victims before their polluters).",
    )
    group.addoption(
        "--orderdep-shards",
        dest="orderdep_shards",
        type=_positive_int,
        default=None,
        metavar="K",
        help="Split the (enhanced) tests over K machines, dependency groups kept whole; "
        "use with --orderdep-shard.",
    )
    group.addoption(
        "--orderdep-shard",
        dest="orderdep_shard",
        type=_positive_int,
        default=None,
        metavar="I",
        help="Run only machine I's share (1..K) of --orderdep-shards K.",
    )
    group.addoption(
        "--orderdep-durations",
        dest="orderdep_durations",
        default=None,
        metavar="FILE",
        help="JSON {test id: seconds} to balance shards (default: the durations in "
        ".orderdep/coverage.json, else every test counts the same).",
    )
    group.addoption(
        "--orderdep-deps-strict",
        dest="orderdep_deps_strict",
        action="store_true",
        default=False,
        help="Stop with a usage error when the dependencies file names tests this suite "
        "does not have (default: warn in one line and skip those entries).",
    )
    parser.addini("orderdep_deps", "orderdep.deps/1 file applied to every run", default="")
    parser.addini(
        "orderdep_record_last",
        "record each run's executed order in pytest's cache for `orderdep why TEST --last`",
        type="bool",
        default=True,
    )
    parser.addini(
        "orderdep_deps_strict",
        "stop when the dependencies file names unknown tests (default: skip them)",
        type="bool",
        default=False,
    )


def _active(config: pytest.Config) -> bool:
    if config.pluginmanager.has_plugin("orderdep.engine.childplugin"):
        return False  # orderdep's own test processes run the exact order they are given
    return bool(
        config.getoption("orderdep_deps")
        or config.getini("orderdep_deps")
        or config.getoption("orderdep_shards")
        or config.getoption("orderdep_shard")
        or config.getoption("orderdep_durations")
    )


def _records_last(config: pytest.Config) -> bool:
    """Record the executed order for ``orderdep why --last`` (see plugin_last)."""
    return (
        getattr(config, "cache", None) is not None
        and bool(config.getini("orderdep_record_last"))
        and not config.pluginmanager.has_plugin("orderdep.engine.childplugin")
    )


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    # trylast: registering our collection hooks after every other plugin's configure
    # makes them the outermost wrapper, so they see the final order (see plugin_deps).
    if _records_last(config):
        from orderdep.shells.plugin_last import register

        register(config)
    if not _active(config):
        return
    from orderdep.shells.plugin_deps import install

    install(config)
