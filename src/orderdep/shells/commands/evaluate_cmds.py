"""``orderdep evaluate``: run unenhanced and enhanced orders of every regression-testing
algorithm and compare them (002, Tables 8-9)."""

from __future__ import annotations

import random
import shlex
from pathlib import Path
from typing import Any, Optional

import click

from orderdep.analysis.regression.coverage import (
    DEFAULT_PATH,
    collect_coverage,
    load_coverage,
    save_coverage,
)
from orderdep.shells.app import cli
from orderdep.shells.commands.engine_cmds import open_engine
from orderdep.shells.commands.explain_cmds import DEFAULT_DEPS
from orderdep.shells.commands.regression_cmds import (
    coverage_path,
    git_changed_lines,
    label_of,
    load_dependencies,
    progress_notice,
)
from orderdep.shells.options import (
    EVALUATION_FILE,
    SEED,
    STORE_OPTION,
    count,
    engine_options,
)


@cli.command()
@engine_options
@STORE_OPTION
@click.option(
    "--deps",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Dependencies file (default PROJECT/{DEFAULT_DEPS}).",
)
@click.option(
    "--coverage",
    "coverage_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Per-test coverage (default PROJECT/{DEFAULT_PATH.as_posix()}; measured if missing).",
)
@click.option(
    "--machines",
    "machines",
    type=count(1),
    multiple=True,
    help="Machines for P1, P2 and groups (repeatable; default 2, 4 and 8).",
)
@click.option(
    "--base",
    default=None,
    help="Select tests by `git diff -U0 BASE` (one change; default: --changes simulated changes).",
)
@click.option(
    "--changes",
    type=count(1),
    default=5,
    show_default=True,
    help="Without --base: simulated changes (one covered function each) for S1-S6.",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for simulated changes.")
@click.option(
    "--repeat",
    type=count(1),
    default=1,
    show_default=True,
    help="Runs of every order; a test counts as failing only if it fails in all of them.",
)
@click.option(
    "--algorithm",
    "-a",
    "algorithms",
    multiple=True,
    type=click.Choice(
        ["T1", "T2", "T3", "T4", "S1", "S2", "S3", "S4", "S5", "S6", "P1", "P2", "groups"],
        case_sensitive=False,
    ),
    help="Only these algorithms (repeatable; default all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the evaluation as JSON.")
def evaluate(
    deps: Optional[Path],
    coverage_file: Optional[Path],
    machines: tuple[int, ...],
    base: Optional[str],
    changes: int,
    seed: int,
    repeat: int,
    algorithms: tuple[str, ...],
    as_json: bool,
    **params: Any,
) -> int:
    """Run unenhanced and enhanced orders of every algorithm; compare OD-test failures and time.

    How many OD tests fail under each algorithm with and without the dependencies file,
    and what each costs. Exit code 1 when an enhanced
    order still has OD-test failures (the dependencies file is incomplete).
    """
    import json

    from orderdep.analysis.regression.evaluate import ALGORITHMS, Change, sample_changes
    from orderdep.analysis.regression.evaluate import evaluate as run_evaluation
    from orderdep.shells.evaluation_table import format_evaluation

    project: Path = params["project"].resolve()
    path = coverage_path(project, coverage_file)
    with open_engine(params) as engine:
        if path.is_file():
            data = load_coverage(path)
        else:
            progress_notice(f"orderdep: no coverage data at {path}; measuring it first")
            data = collect_coverage(engine, project)
            save_coverage(path, data)
        dependencies, deps_path = load_dependencies(project, deps, data.tests, required=True)
        if base is not None:
            change_list = [Change(f"git diff {base}", git_changed_lines(project, base))]
        else:
            change_list = sample_changes(data, changes, random.Random(seed))
        labels = [label_of(a) for a in algorithms]
        result = run_evaluation(
            engine,
            data,
            dependencies,
            algorithms=labels or ALGORITHMS,
            machines=machines or (2, 4, 8),
            changes=change_list,
            repeat=repeat,
            progress=progress_notice,
        )
    saved = project / EVALUATION_FILE
    try:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:  # a read-only project: the evaluation is still printed
        progress_notice(f"orderdep: evaluation not saved to {saved} ({exc.strerror}); printed only")
    else:
        progress_notice(f"orderdep: evaluation saved to {saved} (shown by `orderdep report`)")
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(format_evaluation(result))
        if result.original_failures:
            click.echo(
                f"note: {len(result.original_failures)} test(s) fail in the original order "
                "and are not counted: " + ", ".join(result.original_failures[:5])
            )
        if base is None:
            click.echo(f"selection: {len(change_list)} simulated change(s), seed {seed}")
        command = ["orderdep", "evaluate", str(params["project"])]
        command += ["--deps", str(deps_path)]
        if coverage_file is not None:
            command += ["--coverage", str(coverage_file)]
        for k in machines:
            command += ["--machines", str(k)]
        command += (
            ["--base", base]
            if base is not None
            else ["--changes", str(changes), "--seed", str(seed)]
        )
        if repeat != 1:
            command += ["--repeat", str(repeat)]
        for a in algorithms:
            command += ["--algorithm", a]
        click.echo(f"reproduce: {shlex.join(command)}")
    return 1 if any(r.enhanced_failures for r in result.rows) else 0
