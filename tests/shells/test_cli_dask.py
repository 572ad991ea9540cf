"""``--dask ADDRESS`` on every command that runs orders: a scheduler that cannot be
reached, a bad address or a scheduler without workers is a one-line error, exit 2."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from clitools import VICTIM, one_line

from orderdep.engine import dask_executor

if TYPE_CHECKING:
    from conftest import CliRunner

pytest.importorskip("distributed")


@pytest.fixture
def dead_address() -> str:
    """A TCP address on this machine where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


@pytest.fixture
def analysed(od_project: Path, cli: CliRunner) -> Path:
    """``od_project`` with a report and a PRADET collection (run locally)."""
    assert cli("detect", od_project, "--seed", "1", "--no-check")[0] == 1
    assert cli("pradet", "collect", od_project, "--no-check")[0] == 0
    return od_project


COMMANDS = [
    ["detect", "{p}"],
    ["run", "{p}", VICTIM],
    ["classify", "{p}"],
    ["pradet", "run", "{p}"],
    ["pradet", "collect", "{p}"],
    ["pradet", "refine", "{p}"],
    ["coverage", "{p}"],
    ["evaluate", "{p}"],
    ["debug", "{p}", "--test", VICTIM],
    ["fix", "{p}"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[: a.index("{p}")]))
def test_an_unreachable_scheduler_is_a_one_line_error(
    argv: list[str], analysed: Path, dead_address: str, cli: CliRunner
) -> None:
    code, out, err = cli(*(a.format(p=analysed) for a in argv), "--dask", dead_address)
    assert code == 2, out + err
    assert one_line(err) == (
        f"orderdep: error: cannot reach the Dask scheduler at {dead_address!r} "
        "(Connection refused); start one with `dask scheduler` and workers with "
        f"`dask worker {dead_address}`, or give the address of a running cluster"
    )


@pytest.mark.parametrize("address", ["tcp://127.0.0.1", "tcp://:80", "tcp://host:notaport"])
def test_an_address_without_host_or_port_is_a_one_line_error(
    address: str, od_project: Path, cli: CliRunner
) -> None:
    code, _, err = cli("run", od_project, VICTIM, "--dask", address)
    assert code == 2
    assert one_line(err) == (
        f"orderdep: error: --dask {address!r} is not a scheduler address; "
        "give one like tcp://HOST:8786"
    )


def test_doctor_refuses_dask(od_project: Path, dead_address: str, cli: CliRunner) -> None:
    code, _, err = cli("doctor", od_project, "--dask", dead_address)
    assert code == 2
    assert one_line(err) == (
        f"orderdep: error: --dask {dead_address!r}: doctor checks the runners of the "
        "machine it runs on; run it without --dask on the machine to check"
    )


def test_a_scheduler_without_workers_is_a_one_line_error(
    od_project: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import distributed

    monkeypatch.setattr(dask_executor, "WORKER_WAIT_SECONDS", 0.5)
    with distributed.LocalCluster(
        n_workers=0, processes=False, dashboard_address=None, scheduler_port=0
    ) as cluster:
        address = cluster.scheduler_address
        code, _, err = cli("run", od_project, VICTIM, "--dask", address)
    assert code == 2
    assert one_line(err) == (
        f"orderdep: error: the Dask scheduler at {address!r} has no workers after 0.5s; "
        f"start some with `dask worker {address}`"
    )
