"""``orderdep collect`` and ``orderdep run``: the engine on the command line."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import click

from orderdep.core.outcomes import OrderResult, Outcome
from orderdep.core.suite import Suite
from orderdep.engine.runner import Engine
from orderdep.engine.store import DEFAULT_STORE, Store, code_key, recorded_run
from orderdep.engine.storelock import StoreLock
from orderdep.errors import UsageError
from orderdep.shells.app import cli
from orderdep.shells.arguments import argument
from orderdep.shells.options import (
    PATHS_ARG,
    PROJECT_ARG,
    STORE_OPTION,
    collect_options,
    engine_config,
    order_engine_options,
    order_file_option,
    select_options,
)
from orderdep.shells.output import notice
from orderdep.shells.project import SELECTION_KEY, selector

if TYPE_CHECKING:
    from orderdep.analysis.budget import Budget


def _notice(message: str) -> None:
    notice(message)


def open_engine(
    params: dict[str, Any],
    *,
    job: Optional[str] = None,
    seed: Optional[int] = None,
    store: bool = True,
    budget: Optional[Budget] = None,
    confirms_fresh: bool = False,
    leading: Optional[int] = None,
) -> Engine:
    """An Engine for the command's options, recording into the store (``--store``, default
    the project's), which stays locked until the command ends.

    With ``dask_scheduler`` (``--dask ADDRESS``) the orders run on that Dask cluster.
    With ``check`` in ``params`` (``--check``, the default of the analysing commands)
    the fork runner is first checked against a fresh pytest on this project (see
    :func:`orderdep.analysis.fork_trust.trust_fork`), within ``budget`` (the command's
    ``--budget``) when given; ``confirms_fresh``: the command confirms in fresh processes
    what an unchecked fork runner finds (see :func:`~orderdep.analysis.fork_trust.trust_fork`);
    ``leading``: the check stands on the first ``leading`` tests of the original order.
    """
    config = engine_config(params)
    db = open_store(config.project, params.get("store_path")) if store else None
    engine: Engine
    if params.get("dask_scheduler"):
        from orderdep.engine.dask_executor import DaskEngine

        engine = DaskEngine(
            config, params["dask_scheduler"], store=db, job=job, seed=seed, notice=_notice
        )
        if params.get("jobs") == 1:
            # Analyses size their batches and estimates by --jobs: by default, the
            # cluster's threads (what is found does not depend on it; the seed fixes the
            # search orders, and --jobs the size of confirmation's chunks of suspects).
            params["jobs"] = engine.threads
    else:
        engine = Engine(config, store=db, job=job, seed=seed, notice=_notice)
    if params.get("check") and not params.get("dask_scheduler"):
        from orderdep.analysis.fidelity import VerdictCache
        from orderdep.analysis.fork_trust import trust_fork

        cache = VerdictCache(fidelity_cache_path(config.project, params.get("store_path")))
        try:
            trust_fork(
                engine, cache, _notice, budget, confirms_fresh=confirms_fresh, leading=leading
            )
        except BaseException:
            engine.close(kill=True)
            raise
    return engine


def offer_recorded(engine: Engine, store: Optional[Path]) -> None:
    """Offer ``engine`` the latest run of the original order that the results store
    (``store``, default the project's) holds for this code version and this runner, an
    earlier ``detect``'s, say: a command that does not record its runs (``fix``) then
    does not pay a slow suite's time again for outcomes it already has."""
    path = store_path(engine.config.project, store)
    earlier = recorded_run(path, engine.config.project, engine.suite.ids, engine.runner)
    if earlier is not None:
        engine.offer(earlier)


def fidelity_cache_path(project: Path, store: Optional[Path]) -> Path:
    """Where fork-runner verdicts are cached: beside the results store."""
    return store_path(project, store).parent / "fidelity.json"


def command_line() -> str:
    """The running command as the user typed it (for the store lock's holder)."""
    ctx = click.get_current_context()
    argv = (ctx.find_root().obj or {}).get("argv")
    return shlex.join(["orderdep", *argv]) if argv is not None else ctx.command_path


def store_path(project: Path, given: Optional[Path]) -> Path:
    """The results store: the one given, else the project's."""
    return given if given is not None else project / DEFAULT_STORE


def open_store(project: Path, given: Optional[Path]) -> Store:
    """Lock and open the results store for the rest of the running command."""
    path = store_path(project, given)
    ctx = click.get_current_context()
    lock = StoreLock.acquire(path, command_line())
    ctx.call_on_close(lock.release)
    db = Store(path, code=code_key(project))
    ctx.call_on_close(db.close)
    return db


def run_command(
    project: Path, order: list[str], order_file: Optional[Path] = None, flags: Sequence[str] = ()
) -> str:
    """The exact command that reruns ``order`` (ids inline, or the file when long), with
    the engine ``flags`` the printing command ran with (:func:`~orderdep.shells.options.
    engine_flags`)."""
    parts = ["orderdep", "run", str(project), *flags]
    if order_file is not None:
        parts += ["--order-file", str(order_file)]
    else:
        parts += ["--", *order] if any(t.startswith("-") for t in order) else order
    return shlex.join(parts)


def collect_suite(project: Path, params: dict[str, Any]) -> Suite:
    """The project's suite, collected with the :func:`collect_options` in ``params``."""
    params = {**params, "project": project, "runner": "subprocess", "jobs": 1, "timeout": None}
    with open_engine(params, store=False) as engine:
        return engine.suite


@cli.command()
@PROJECT_ARG
@PATHS_ARG
@click.option("--json", "as_json", is_flag=True, help="Print the suite as JSON.")
@collect_options
@select_options
def collect(project: Path, as_json: bool, **params: Any) -> int:
    """Print the project's test ids in original (collection) order."""
    suite = collect_suite(project, params)
    if as_json:
        click.echo(json.dumps(suite.to_json(), indent=2))
    else:
        for test in suite.ids:
            click.echo(test)
    return 0


def read_order_file(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read --order-file {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(
            f"--order-file {str(path)!r} is not UTF-8 text; write one test id per line"
        ) from None
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--order-file {str(path)!r} is not valid JSON: {exc}") from None
        return [str(t) for t in data]
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def print_result(result: OrderResult) -> None:
    width = max((len(r.outcome.value) for r in result.results), default=6)
    for i, r in enumerate(result.results):
        line = f"{i:>4}  {r.outcome.value:<{width}}  {r.duration:7.3f}s  {r.test}"
        click.echo(line)
        if r.message and r.outcome.is_failure:
            click.echo(f"{'':>6}{r.message.splitlines()[0][:200]}")
    counts: dict[str, int] = {}
    for r in result.results:
        counts[r.outcome.value] = counts.get(r.outcome.value, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    click.echo(f"{summary} in {result.wall_seconds:.2f}s ({result.runner} runner)")


def expand(args: Sequence[str], project: Path, suite: Suite) -> list[str]:
    """The order ``args`` name: a test id as it is (it may repeat); a test file,
    directory or class as its collected tests in original order, as pytest runs them."""
    root = project.resolve()
    order: list[str] = []
    for arg in args:
        arg = selector(arg, root)
        if arg in suite:
            order.append(arg)
            continue
        path = arg.rstrip("/")
        # a test function named without its parameters runs each of them
        found = [t for t in suite.ids if t.startswith((f"{path}::", f"{path}/", f"{path}["))]
        if not found and "::" in arg:
            order.append(arg)  # not collected: engine.check names it and the closest id
            continue
        if not found:
            raise UsageError(
                f"{arg!r} is not a collected test id, test file or directory of "
                f"{str(project)!r}; see `orderdep collect` for the ids"
            )
        order += found
    return order


@cli.command()
@order_engine_options
@STORE_OPTION
@order_file_option(
    "File with one test id per line (or a JSON list), in the order to run "
    "(default: the TESTS given)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@argument(
    "tests",
    nargs=-1,
    help="The order to run: node ids, test files or directories as pytest takes them; "
    "an id may repeat (default: the whole suite in original order).",
)
def run(tests: tuple[str, ...], order_file: Optional[Path], as_json: bool, **params: Any) -> int:
    """Run TESTS (or --order-file) in exactly this order, in a fresh interpreter state.

    TESTS are node ids, test files or directories, as for pytest (a file or directory
    runs its tests in original order); without TESTS, the whole suite in original
    order. The same id may appear more than once: `orderdep run . t t` runs t twice.
    Exit code 1 when any position fails.
    """
    project: Path = params["project"]
    # A test file or node id given first (where PROJECT goes) is the first test to run.
    ctx = click.get_current_context()
    tests = (*ctx.meta.pop(SELECTION_KEY, []), *tests)
    if tests and order_file is not None:
        raise UsageError("give test ids or --order-file, not both")
    with open_engine(params, job=None) as engine:
        if order_file is not None:
            order = read_order_file(order_file)
            if not order:
                raise UsageError(f"--order-file {str(order_file)!r} names no tests")
        else:
            order = expand(tests, project, engine.suite) if tests else list(engine.suite.ids)
        if not order:
            raise UsageError("no tests collected: nothing to run (see `orderdep collect`)")
        engine.check(order)
        result = engine.run(order)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        print_result(result)
    bad = any(r.outcome.is_failure or r.outcome is Outcome.NOT_RUN for r in result.results)
    return 1 if bad else 0
