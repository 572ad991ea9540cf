"""Configuration: ``[tool.orderdep]`` in pyproject.toml, ``[orderdep]`` in ini files, and
``ORDERDEP_*`` environment variables, as defaults for the command-line options.

Sources, lowest precedence first (coverage.py and pytest layer theirs the same way):

1. the options' own defaults;
2. the configuration file: walking up from the command's PROJECT directory, the first of
   ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``, ``tox.ini``, ``setup.cfg`` (pytest's
   order within a directory) that has an orderdep section: ``[orderdep]`` (``setup.cfg``
   also ``[tool:orderdep]``) or ``[tool.orderdep]`` in ``pyproject.toml``;
3. environment variables ``ORDERDEP_<KEY>`` (``pytest-args`` -> ``ORDERDEP_PYTEST_ARGS``);
4. the command line.

:data:`KEYS` is the one table of settings: each key names the options it sets (an option
is called differently by some commands, e.g. ``--deps``; ``command:param`` is one
command's option). Values are checked with the
options' own click types, for every command that has the option, before anything runs;
an unknown key or a bad value is a one-line :class:`ConfigError` naming the file and the
key (exit 2). The resulting values reach the commands as click's ``default_map``, built
once by :class:`ConfiguredGroup`, the ``orderdep`` group's class.
"""

from __future__ import annotations

import configparser
import difflib
import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import click

from orderdep.errors import UsageError, shown_path

ENV_PREFIX = "ORDERDEP_"
#: pytest's configuration files in its order of preference within one directory.
FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


class ConfigError(UsageError):
    """A configuration file or ``ORDERDEP_*`` variable has an unknown key or a bad value."""


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[\s,]+", text) if w]


def _paths(text: str) -> list[str]:
    return [p for p in re.split(r"[\s" + re.escape(os.pathsep) + r"]+", text) if p]


@dataclass(frozen=True)
class Key:
    """One setting: the click parameter names it sets and how text becomes a list."""

    params: tuple[str, ...]
    help: str
    split: Optional[Callable[[str], list[str]]] = None  # list-valued keys only
    path: bool = False  # relative paths are relative to the configuration file


KEYS: dict[str, Key] = {
    "runner": Key(("runner",), "fork or subprocess"),
    "jobs": Key(("jobs",), "orders run in parallel"),
    "timeout": Key(("timeout",), "seconds per order"),
    "budget": Key(("budget",), "seconds a search may take"),
    "seed": Key(("seed",), "seed of every random choice"),
    "group": Key(("group",), "keep modules or classes together: module, class or none"),
    "strategies": Key(("strategies",), "detection strategies, in order", split=_words),
    "rounds": Key(("rounds",), "orders of the random strategies"),
    "max-orders": Key(("max_orders",), "stop a search after this many orders"),
    "confirm-runs": Key(("confirm_runs",), "re-runs before a test is called OD"),
    "guided": Key(("guided",), "confirm suspects from data dependencies (one probed run)"),
    "allow-incomplete": Key(("allow_incomplete",), "exit 0 after a search that did not run whole"),
    "home": Key(("home",), "HOME the tests see: copy, empty or real"),
    "python": Key(("python",), "interpreter to run the tests with, or tox:ENV, nox:SESSION"),
    "rootdir": Key(("rootdir",), "passed to pytest as --rootdir", path=True),
    "pythonpath": Key(("pythonpath",), "directories put on sys.path", split=_paths, path=True),
    "pytest-args": Key(("pytest_args",), "extra pytest arguments", split=shlex.split),
    "store": Key(("store_path",), "results store", path=True),
    "report": Key(("report_file", "report"), "report file", path=True),
    "deps": Key(("deps", "deps_file", "deps:output"), "dependencies file", path=True),
    "coverage": Key(("coverage_file", "coverage:output"), "per-test coverage file", path=True),
    "baseline": Key(
        ("baseline_files",), "known order-dependent tests (files)", split=_paths, path=True
    ),
}


def given_by_user(ctx: click.Context, name: str) -> bool:
    """Whether parameter ``name`` came from the command line or its envvar, not from a
    default or the configuration (a configured file must not count as "given")."""
    source = ctx.get_parameter_source(name)
    return source not in (
        None,
        click.core.ParameterSource.DEFAULT,
        click.core.ParameterSource.DEFAULT_MAP,
    )


def env_name(key: str) -> str:
    return ENV_PREFIX + key.upper().replace("-", "_")


# --- reading the sources ----------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where settings came from (for messages) and the raw values by key."""

    label: str  # e.g. "pyproject.toml [tool.orderdep]"
    base: Path  # relative paths are relative to this directory
    values: dict[str, Any]


def _read_toml(path: Path) -> Optional[dict[str, Any]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{shown_path(path)}: not valid TOML ({exc}); fix the file or remove [tool.orderdep]"
        ) from None
    section = data.get("tool", {}).get("orderdep")
    if section is None:
        return None
    if not isinstance(section, dict):
        raise ConfigError(f"{shown_path(path)}: [tool.orderdep] must be a table")
    return section


def _read_ini(path: Path) -> Optional[tuple[str, dict[str, Any]]]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (configparser.Error, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{shown_path(path)}: not a valid ini file ({first}); fix it") from None
    names = ("orderdep", "tool:orderdep") if path.name == "setup.cfg" else ("orderdep",)
    for name in names:
        if parser.has_section(name):
            return name, dict(parser.items(name))
    return None


def read_file(path: Path) -> Optional[Source]:
    """The orderdep section of one configuration file (``None`` when it has none)."""
    if path.name == "pyproject.toml":
        values = _read_toml(path)
        if values is None:
            return None
        return Source(f"{shown_path(path)} [tool.orderdep]", path.parent, values)
    found = _read_ini(path)
    if found is None:
        return None
    section, values = found
    return Source(f"{shown_path(path)} [{section}]", path.parent, values)


def find_file(start: Path) -> Optional[Source]:
    """The nearest configuration file with an orderdep section, from ``start`` upwards."""
    for folder in [start, *start.parents]:
        for name in FILES:
            path = folder / name
            if path.is_file():
                source = read_file(path)
                if source is not None:
                    return source
    return None


def read_env(environ: Mapping[str, str], cwd: Path) -> Source:
    """The ``ORDERDEP_<KEY>`` variables that name a key (others are not settings)."""
    values = {k: environ[env_name(k)] for k in KEYS if environ.get(env_name(k), "") != ""}
    return Source("environment", cwd, values)


# --- checking and combining -------------------------------------------------------------------


def _value(source: Source, key: str, raw: Any) -> Any:
    """``raw`` in the form click's default_map takes (lists split, paths made absolute)."""
    spec = KEYS[key]
    where = f"{source.label}: {env_name(key) if source.label == 'environment' else key}"
    if spec.split is not None:
        if isinstance(raw, str):
            raw = spec.split(raw)
        if not isinstance(raw, list) or not all(isinstance(x, (str, int, float)) for x in raw):
            raise ConfigError(f"{where} = {raw!r}: expected a list of strings")
        items = [str(x) for x in raw]
        return [str(source.base / x) for x in items] if spec.path else items
    if isinstance(raw, (list, dict, bool)):
        raise ConfigError(f"{where} = {raw!r}: expected a single value")
    if spec.path:
        return str(source.base / str(raw))
    return raw


def _commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command]]:
    out: list[tuple[tuple[str, ...], click.Command]] = []
    load_all = getattr(group, "load_all", None)  # the top group imports its commands lazily
    every = load_all() if callable(load_all) else group.commands
    for name, cmd in every.items():
        if isinstance(cmd, click.Group):
            out += _commands(cmd, (*path, name))
        else:
            out.append(((*path, name), cmd))
    return out


def check_keys(source: Source) -> None:
    for key in source.values:
        if key not in KEYS:
            close = difflib.get_close_matches(key, list(KEYS), n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(
                f"{source.label}: unknown key {key!r}; {hint}"
                f"valid keys: {', '.join(KEYS)} (see docs/configuration.md)"
            )


def default_map(
    group: click.Group, sources: list[Source], running: Optional[str] = None
) -> dict[str, Any]:
    """click's ``default_map`` for ``group``: later sources win; every value is checked,
    for the ``running`` command first (a bad value is named with that command's option)."""
    settings: dict[str, tuple[Source, Any, Any]] = {}
    for source in sources:
        check_keys(source)
        for key, raw in source.values.items():
            settings[key] = (source, raw, _value(source, key, raw))
    out: dict[str, Any] = {}
    if not settings:
        return out
    commands = sorted(_commands(group), key=lambda pc: pc[0][0] != running)
    for path, cmd in commands:
        ctx = click.Context(cmd, info_name=path[-1], resilient_parsing=True)
        params = {p.name: p for p in cmd.params if isinstance(p, click.Option)}
        mine: dict[str, Any] = {}
        for key, (source, raw, value) in settings.items():
            for entry in KEYS[key].params:
                # "command:param" applies to that command only.
                scope, _, name = entry.rpartition(":")
                param = params.get(name) if scope in ("", " ".join(path)) else None
                if param is None:
                    continue
                try:
                    param.type_cast_value(ctx, value)
                except click.BadParameter as exc:
                    shown = env_name(key) if source.label == "environment" else key
                    raise ConfigError(
                        f"{source.label}: {shown} = {raw!r}: {exc.message.rstrip('.')} "
                        f"(option {param.opts[0]} of `orderdep {' '.join(path)}`); fix the value"
                    ) from None
                mine[name] = value
        if mine:
            node = out
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = mine
    return out


# --- the group --------------------------------------------------------------------------------


def _project(ctx: click.Context, name: str, cmd: click.Command, args: list[str]) -> Optional[Path]:
    """The PROJECT argument ``args`` give ``cmd`` (parsed leniently, nothing runs)."""
    probe = cmd.make_context(name, list(args), parent=ctx, resilient_parsing=True)
    if isinstance(cmd, click.Group):
        rest = [*getattr(probe, "_protected_args", []), *probe.args]
        if not rest:
            return None
        sub_name, sub, sub_args = cmd.resolve_command(probe, rest)
        if sub is None or sub_name is None:
            return None
        return _project(probe, sub_name, sub, sub_args)
    project = probe.params.get("project")
    return Path(project) if project is not None else None


class ConfiguredGroup(click.Group):
    """The ``orderdep`` group: reads the configuration for the invoked command's PROJECT
    and hands it to the commands as their ``default_map``."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[Optional[str], Optional[click.Command], list[str]]:
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None and name is not None and not ctx.resilient_parsing:
            try:
                project = _project(ctx, name, cmd, rest)
            except (click.ClickException, click.exceptions.Exit):
                project = None  # the real parse reports it
            cwd = Path.cwd()
            start = (cwd / project).resolve() if project is not None else cwd
            sources = [s for s in [find_file(start)] if s is not None]
            sources.append(read_env(os.environ, cwd))
            ctx.default_map = default_map(self, sources, name)
        return name, cmd, rest
