"""``fix`` on a suite that binds a fixed port when its test module is imported: the
patched copy cannot be collected while the unpatched project's test processes hold the
port, so they stop first, and the patch is verified."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

from clitools import write_files

from orderdep.core.report import ODFinding, Report, save_report

if TYPE_CHECKING:
    from conftest import CliRunner

TEST_MODULE = """
    import socket

    import state

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", {port}))  # the fixed port of the suite's test server
    server.listen()


    def test_add():
        state.items.append(1)


    def test_empty():
        assert state.items == []
    """


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_patch_is_verified_on_a_suite_that_binds_a_port_at_import(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    files = {
        "pytest.ini": "[pytest]\npythonpath = .\n",
        "state.py": "items = []\n",
        "tests/__init__.py": "",
        "tests/test_port.py": TEST_MODULE.replace("{port}", str(_free_port())),
    }
    root = write_files(tmp_path / "p", files)
    t = "tests/test_port.py::"
    finding = ODFinding(t + "test_empty", "victim", polluters=[t + "test_add"])
    save_report(
        root / ".orderdep/report.json",
        Report(str(root), [t + "test_add", t + "test_empty"], [finding]),
    )
    code, out, err = cli("fix", root, "--apply")
    assert "Address already in use" not in out, out
    # the check of the fork runner runs its fresh pytest with the fork server stopped
    assert "not collected in a fresh process" not in out + err, err
    assert "collects them once they stop (a port the suite binds at import" in out + err
    assert code == 0, out + err
    assert "patch set: 1 patch(es) for 1 OD test(s) hold together" in out, out
