"""``orderdep why TEST``: from a failing run to its cause in one command."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import click

from orderdep.errors import UsageError, shown_path
from orderdep.shells.app import cli
from orderdep.shells.arguments import argument
from orderdep.shells.commands.engine_cmds import open_engine, read_order_file
from orderdep.shells.options import (
    CHECK_OPTION,
    DEFAULT_REPORT,
    SEED,
    STORE_OPTION,
    engine_config,
    engine_flags,
    engine_options,
    order_file_option,
    report_option,
)
from orderdep.shells.output import notice

if TYPE_CHECKING:
    from orderdep.analysis.why.explain import Explanation
    from orderdep.analysis.why.search import WhyResult

# The search needs neither the repair machinery (libcst) nor the Debugger: both are
# imported only when their output is asked for (--state, --fix), which keeps
# `why --no-fix --no-state` start-up light.
JOB = "why"
SOURCES = "--order-file, --junitxml, --randomly-seed, --random-order-seed or --last"
MAX_SHOWN_ROOTS = 10


def _notice(message: str) -> None:
    notice(f"  .. {message}")


def failing_order(
    params: dict[str, Any],
    test: str,
    order_file: Optional[Path],
    junitxml: Optional[Path],
    randomly_seed: Optional[int],
    random_order_seed: Optional[int],
    last: bool,
    suite_ids: Sequence[str],
) -> tuple[str, list[str]]:
    """(how the order was given, the order) from the one source the user gave."""
    from orderdep.analysis.why import sources

    given = [
        name
        for name, value in (
            ("--order-file", order_file),
            ("--junitxml", junitxml),
            ("--randomly-seed", randomly_seed),
            ("--random-order-seed", random_order_seed),
            ("--last", last or None),
        )
        if value is not None
    ]
    if len(given) != 1:
        what = "no failing order" if not given else f"{' and '.join(given)} together"
        raise UsageError(f"{what}: give the failing run with exactly one of {SOURCES}")
    source = given[0]
    if order_file is not None:
        return source, read_order_file(order_file)
    if junitxml is not None:
        return source, sources.junit_file_order(junitxml, suite_ids, test)
    if randomly_seed is not None:
        return source, sources.seeded_order(engine_config(params), "randomly", randomly_seed)
    if random_order_seed is not None:
        config = engine_config(params)
        return source, sources.seeded_order(config, "random-order", random_order_seed)
    return source, sources.last_order(engine_config(params), test)


def from_known(
    params: dict[str, Any], test: str, order: Sequence[str], report: Optional[Path]
) -> Optional[WhyResult]:
    """The answer from what a report or an earlier ``why`` knows of ``test``, checked with
    one fresh run of its minimal failing order; None when nothing known fits."""
    from orderdep.analysis.why.known import KNOWN_FILE, check_known, known_causes, read_json
    from orderdep.engine.plain import PlainRunner
    from orderdep.engine.tempdirs import make_workdir

    if test not in order:
        return None
    given = list(order[: list(order).index(test) + 1])
    project = Path(params["project"])
    path = report if report is not None else project / DEFAULT_REPORT
    causes = known_causes(test, read_json(path), read_json(project / KNOWN_FILE),
                          f"the report {shown_path(path)}")  # fmt: skip
    if not any(c.fits(given) for c in causes):
        return None
    with make_workdir("orderdep-why-") as work:
        runner = PlainRunner(engine_config(params), Path(work) / "plain")
        try:
            return check_known(runner, test, given, causes)
        finally:
            runner.close()


def run_line(project: Path, params: dict[str, Any], order: Sequence[str]) -> str:
    """The ``orderdep run`` command that reruns ``order`` the way ``why`` ran it."""
    parts = ["orderdep", "run", str(project), *engine_flags(params)]
    if any(t.startswith("-") for t in order):
        parts.append("--")
    return shlex.join([*parts, *order])


def result_lines(result: WhyResult, source: str) -> list[str]:
    test, n = result.test, len(result.given) - 1
    lines = [f"{test} fails in the order of {source} ({n} tests before it)"]
    culprits = " -> ".join(result.culprits)
    if not result.minimal:
        what = "victim of" if result.verdict == "victim" else "brittle: passes after"
        lines.append(f"{what} many tests together: {len(result.culprits)} kept (not minimal)")
    elif result.verdict == "victim" and len(result.culprits) == 1:
        needed = f"of the {n} tests before it, only this one is needed; it passes alone"
        lines.append(f"victim of: {culprits} ({needed})")
    elif result.verdict == "victim":
        lines.append(f"victim of a polluter group: {culprits} (all of them; no one alone)")
    elif result.verdict == "brittle":
        what = "state-setter" if len(result.culprits) == 1 else "state-setters, in this order"
        missing = "the failing order did not run them before it this way"
        lines.append(f"brittle: fails alone; passes after its {what}: {culprits} ({missing})")
    elif result.verdict == "nd":
        lines.append("not order-dependent: nondeterministic (ND)")
    else:
        lines.append("not order-dependent: it fails in every order tried")
    lines += [f"note: {note}" for note in result.notes]
    return lines


def explanation_lines(found: Explanation, project: Path) -> list[str]:
    from orderdep.shells.commands.debug_cmds import root_lines

    lines: list[str] = []
    dbg = found.debug
    if dbg is not None:
        culprits = dbg.culprits
        label = "polluted state" if dbg.kind == "victim" else "state it needs"
        if culprits:
            lines.append(f"{label}:")
            for root in culprits[:MAX_SHOWN_ROOTS]:
                lines += [f"  {line}" for line in root_lines(root)]
        else:
            lines.append(f"{label}: {len(dbg.differing)} root(s) differ, none explains it alone")
            for root in dbg.differing[:MAX_SHOWN_ROOTS]:
                lines += [f"  {line}" for line in root_lines(root)]
        lines += [f"note: {n}" for n in dbg.notes]
    lines += [f"note: {n}" for n in found.notes]
    fix = found.fix.fix if found.fix is not None else None
    if found.fix is not None and fix is None:
        lines.append("no verified patch: " + ("; ".join(found.fix.notes) or "no candidate"))
    if fix is not None:
        head = f"patch ({fix.strategy}, {fix.size} changed line(s))"
        lines.append(f"{head}: {fix.description}; {fix.verification.summary()}")
        lines.append(fix.diff.rstrip("\n"))
    return lines


def _save_patch(found: Explanation, project: Path, apply_: bool) -> list[str]:
    from orderdep.analysis.repair.fix_result import apply_fix
    from orderdep.shells.patch_files import apply_commands, patch_name

    if found.fix is None or found.fix.fix is None:
        return []
    fix = found.fix.fix
    if apply_:
        return [f"applied to {', '.join(apply_fix(project.resolve(), fix))}"]
    # its own file: `fix` writes the report's patch (all its partners) under the plain name
    patch = project / DEFAULT_REPORT.parent / "patches" / patch_name(fix.test, "why")
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(fix.diff, encoding="utf-8")
    cmds = apply_commands(project, patch.relative_to(project))
    return [f"apply it: {cmds[0]}", *(f"      or: {c}" for c in cmds[1:])]


@cli.command()
@argument("test", help="The node id of the test that failed.")
@engine_options
@STORE_OPTION
@order_file_option(
    "The failing order: one test id per line (or a JSON list). No default: give "
    "one of the five sources."
)
@click.option(
    "--junitxml",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The failing run's JUnit XML (pytest --junitxml); under xdist, the order of the "
    "worker that ran TEST when the file says (orderdep's plugin records it), else of all "
    "(no default).",
)
@click.option(
    "--randomly-seed", type=SEED, default=None, help="The pytest-randomly seed (no default)."
)
@click.option(
    "--random-order-seed",
    type=SEED,
    default=None,
    help="The pytest-random-order seed (no default).",
)
@click.option(
    "--last", is_flag=True, help="The order of the last pytest run here (recorded by the plugin)."
)
@click.option(
    "--fix/--no-fix", "repair", default=True, show_default=True, help="Look for a verified patch."
)
@click.option(
    "--state/--no-state",
    default=True,
    show_default=True,
    help="Show the shared state involved (the Debugger's root diff).",
)
@click.option("--apply", "apply_", is_flag=True, help="Apply the patch (default: only print).")
@click.option("--no-suite-check", is_flag=True, help="Verify the patch on the test's orders only.")
@click.option(
    "--known/--no-known",
    "use_known",
    default=True,
    show_default=True,
    help="With --last or --order-file: answer from a polluter or state-setter the report "
    "(or an earlier why) already names, checked with one run of the minimal failing order, "
    "before any search.",
)
@report_option("The report whose findings --known uses (default: .orderdep/report.json).")
@CHECK_OPTION
def why(
    test: str,
    order_file: Optional[Path],
    junitxml: Optional[Path],
    randomly_seed: Optional[int],
    random_order_seed: Optional[int],
    last: bool,
    repair: bool,
    state: bool,
    apply_: bool,
    no_suite_check: bool,
    use_known: bool,
    report: Optional[Path],
    **params: Any,
) -> int:
    """Why TEST failed in a given order: its polluter(s) or missing state-setter(s), the
    shared state involved, a verified patch, and the commands that reproduce it.

    Give the failing run with one of --order-file, --junitxml, --randomly-seed,
    --random-order-seed or --last. Exit code 0 when the cause was found, 1 when the test
    is not order-dependent (nondeterministic, or failing in every order), 2 when the
    input is wrong or the failure does not reproduce.
    """
    from orderdep.analysis.why.explain import explain
    from orderdep.analysis.why.known import KNOWN_FILE, remember
    from orderdep.analysis.why.search import why as find

    project: Path = params["project"]
    if apply_ and not repair:
        raise UsageError("--apply needs --fix (the default); drop --no-fix")
    result: Optional[WhyResult] = None
    one_source = junitxml is None and randomly_seed is None and random_order_seed is None
    if use_known and one_source and (order_file is not None or last):
        source, order = failing_order(params, test, order_file, None, None, None, last, ())
        result = from_known(params, test, order, report)
    lines: list[str] = []
    runner = result.runner if result is not None else params["runner"]
    if result is not None:  # the answer at once; the state and the patch follow
        click.echo("\n".join(result_lines(result, source)))
    if result is None or repair or state:
        with open_engine(params, job=JOB) as engine:
            if result is None:
                source, order = failing_order(
                    params, test, order_file, junitxml, randomly_seed, random_order_seed,
                    last, engine.suite.ids,
                )  # fmt: skip
                _notice(f"{source}: {len(order)} tests")
                result = find(engine, test, order, progress=_notice)
                lines += result_lines(result, source)
            found = explain(
                engine,
                result,
                repair=repair,
                state=state,
                suite_check=not no_suite_check,
                progress=_notice,
            )
            runner = engine.runner
        lines += explanation_lines(found, project)
        if result.found:
            lines += _save_patch(found, project, apply_)
    remember(project / KNOWN_FILE, result)
    if result.found:
        shown = {**params, "runner": runner}
        lines.append(f"reproduce the failure: {run_line(project, shown, result.failing_order)}")
        lines.append(f"and the pass:          {run_line(project, shown, result.passing_order)}")
    if lines:
        click.echo("\n".join(lines))
    _notice(f"{result.orders_run} orders run, {result.reused} reused from the store")
    return 0 if result.found else 1
