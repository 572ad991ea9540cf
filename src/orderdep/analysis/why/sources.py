"""The failing order ``orderdep why`` starts from, from each source a user has at hand.

* ``--order-file``: one id per line (or a JSON list);
* ``--junitxml``: the test cases of a JUnit report (:mod:`orderdep.core.failing_order`);
* ``--randomly-seed N`` / ``--random-order-seed N``: the order the plugin itself produces
  with that seed, read from ``pytest --collect-only`` with the plugin on (never
  re-implemented, so it follows the installed version's algorithm);
* ``--last``: the order the plugin recorded in pytest's cache during the last run
  (:mod:`orderdep.shells.plugin_last`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from orderdep.core.failing_order import (
    RecordedProcess,
    junit_order,
    last_run,
    parse_junit,
    recorded_order,
)
from orderdep.engine.config import EngineConfig
from orderdep.errors import UsageError, shown_path

# (option, pytest plugin name to load, its distribution, the seed option, plugins to switch off)
SEEDED = {
    "randomly": ("--randomly-seed", "randomly", "pytest-randomly", ["-p", "no:random_order"]),
    "random-order": (
        "--random-order-seed",
        "random_order",
        "pytest-random-order",
        ["-p", "no:randomly"],
    ),
}
#: Where, under pytest's cache directory, the plugin keeps the last run's orders.
LAST_DIR = Path("v") / "orderdep" / "last"


def junit_file_order(path: Path, suite_ids: Sequence[str], test: str) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(
            f"cannot read --junitxml {shown_path(path)!r}: {why}; pass the file pytest "
            "wrote with --junitxml=FILE"
        ) from None
    cases = parse_junit(text, f"--junitxml {shown_path(path)!r}")
    return junit_order(cases, suite_ids, test)


def seeded_order(config: EngineConfig, plugin: str, seed: int) -> list[str]:
    """The order ``plugin`` (``randomly`` or ``random-order``) gives the suite with ``seed``.

    Collects with pytest in the project (the plugin shuffles at collection); the cache
    provider is off so the user's cached seed is left alone.
    """
    option, name, dist, others = SEEDED[plugin]
    cmd = [config.python, "-m", "pytest", *config.pytest_args, "-p", name, *others]
    cmd += ["-p", "no:cacheprovider", "-p", "no:xdist", f"{option}={seed}"]
    cmd += ["--collect-only", "-q", "-o", "orderdep_record_last=false"]
    if config.rootdir:
        cmd += ["--rootdir", config.rootdir]
    if config.pythonpath:
        cmd += ["-o", "pythonpath=" + " ".join(config.pythonpath)]
    proc = subprocess.run(
        cmd, cwd=config.project, capture_output=True, text=True, env=config.child_env({})
    )
    output = proc.stdout + proc.stderr
    if f"No module named '{name}'" in output or f'Error importing plugin "{name}"' in output:
        raise UsageError(
            f"{option} needs {dist}, which {config.python} cannot import; install it "
            f"({config.python} -m pip install {dist}) or give the order another way"
        )
    if proc.returncode not in (0, 5):
        last = (output.strip().splitlines() or ["no output"])[-1]
        raise UsageError(
            f"pytest could not collect the project with {option}={seed}: {last}; "
            "run `orderdep collect` to see the error"
        )
    return [line for line in proc.stdout.splitlines() if "::" in line and " " not in line]


def pytest_cache_dir(config: EngineConfig) -> Path:
    """The cache directory pytest uses in the project (its ``cache_dir`` ini option,
    relative to the rootdir), as pytest itself reports it (``--cache-show``, which
    collects nothing)."""
    cmd = [config.python, "-m", "pytest", *config.pytest_args, "--cache-show", "orderdep/*"]
    if config.rootdir:
        cmd += ["--rootdir", config.rootdir]
    proc = subprocess.run(
        cmd, cwd=config.project, capture_output=True, text=True, env=config.child_env({})
    )
    lines = proc.stdout.splitlines()
    found = {
        key: line.split(":", 1)[1].strip()
        for line in lines
        for key in ("cachedir", "rootdir")
        if line.startswith(f"{key}: ")
    }
    if "cachedir" not in found:
        last = ((proc.stdout + proc.stderr).strip().splitlines() or ["no output"])[-1]
        raise UsageError(
            f"cannot find pytest's cache in {shown_path(config.project)!r} (pytest "
            f"--cache-show said: {last}); --last needs pytest's cache provider on, "
            "else pass --order-file"
        )
    cache = Path(found["cachedir"]).expanduser()
    rootdir = Path(found.get("rootdir", config.rootdir or config.project))
    return cache if cache.is_absolute() else Path(config.project) / rootdir / cache


def recorded_processes(cache_dir: Path) -> list[RecordedProcess]:
    """The processes of the last run the plugin recorded in the pytest cache ``cache_dir``."""
    folder = cache_dir / LAST_DIR
    entries = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        try:
            entry = RecordedProcess.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            entry = None
        if entry is not None:
            entries.append(entry)
    processes = last_run(entries)
    if not processes:
        raise UsageError(
            f"no recorded run in {shown_path(folder)!r}; run pytest in the project first "
            "(with orderdep installed and orderdep_record_last on), or pass --order-file"
        )
    return processes


def last_order(config: EngineConfig, test: str) -> list[str]:
    """The order of the last recorded run in which ``test`` ran."""
    return recorded_order(recorded_processes(pytest_cache_dir(config)), test)
