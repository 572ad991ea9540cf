"""Resuming ``orderdep pradet``: a rerun of the same command on the same code refines the
collection it saved instead of collecting again, and takes the orders it already ran from
the store (the engine's job), so a run stopped by ``--budget`` or Ctrl-C goes on from
where it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Optional

from orderdep.analysis.pradet.collection import Collected, load_collected
from orderdep.errors import OrderdepError
from orderdep.shells.options import setup_key


def pradet_job(
    params: dict[str, Any],
    order: Optional[list[str]],
    also_reverse: bool,
    extra_orders: int,
    seed: int,
) -> str:
    """The store's job of ``orderdep pradet run``: the orders it collects (reference,
    reversed, extra ones from the seed) and the pytest setup; the budget only extends it."""
    key = json.dumps(
        {
            "order": order,
            "reverse": also_reverse,
            "extra": extra_orders,
            "seed": seed,
            **setup_key(params),
        },
        sort_keys=True,
    )
    return f"pradet/{hashlib.sha1(key.encode()).hexdigest()[:10]}"


def refine_job(graph_path: Path) -> str:
    """The store's job of ``orderdep pradet refine``: one per collection file content."""
    return f"pradet-refine/{hashlib.sha1(graph_path.read_bytes()).hexdigest()[:10]}"


def resumable(graph_path: Path, project: Path, job: str, code: str) -> Optional[Collected]:
    """The collection saved by an earlier run of the same job on the same code, if any."""
    if not code or not graph_path.is_file():
        return None
    try:
        saved = load_collected(graph_path, project=str(project))
    except OrderdepError:
        return None  # not ours, or unreadable: collect again (and overwrite it)
    return saved if saved.job == job and saved.code == code else None


def say_reused(engine: Any, notice: Callable[[str], None]) -> None:
    """Say how many orders came from the store, as every resumable command does."""
    reused = getattr(engine, "reused", 0)
    if reused:
        notice(
            f"resumed: {reused} order(s) reused from an earlier run of this command, "
            f"{getattr(engine, 'orders_run', 0)} run now"
        )
