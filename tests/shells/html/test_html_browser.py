"""The page in a real browser (headless Chromium): its script runs without an error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from html_helpers import big_report, synth_report

from orderdep.core.report import save_report
from orderdep.shells.html import gather, render_html

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
if CHROMIUM is None:
    print("headless browser tests skipped: no chromium on PATH (apt-get install chromium)")

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (apt-get install chromium); page not run in a browser",
    ),
    pytest.mark.slow,
]


def chromium(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
        "--enable-logging=stderr", "--v=0", f"--user-data-dir={home / 'profile'}",
        "--window-size=1400,1000", *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def console_errors(stderr: str) -> list[str]:
    """The page's console messages and uncaught errors in Chromium's log."""
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line or "Uncaught" in line or "SyntaxError" in line
    ]


def run_page(page: Path, tmp_path: Path) -> str:
    proc = chromium("--dump-dom", page.as_uri(), home=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert console_errors(proc.stderr) == []
    return proc.stdout


@pytest.mark.parametrize("which", ["generated", "200+ nodes"])
def test_the_script_finishes_without_errors(which: str, tmp_path: Path) -> None:
    root = tmp_path / "project"
    if which == "generated":
        synth_report(root)
    else:
        save_report(root / ".orderdep" / "report.json", big_report(str(root.resolve())))
    page = tmp_path / "report.html"
    page.write_text(render_html(gather(root)), encoding="utf-8")
    dom = run_page(page, tmp_path)
    head = dom[: dom.index(">", dom.index("<html")) + 1]
    assert 'data-report-ready="1"' in head, head
    assert "data-report-error" not in head
    # the script fitted the graph's frame and view to the window
    assert 'id="graph"' in dom and 'style="height:' in dom


def test_a_broken_script_is_detected(tmp_path: Path) -> None:
    # the check above would see an error: a page whose script throws is not marked ready
    root = tmp_path / "project"
    save_report(root / ".orderdep" / "report.json", big_report(str(root.resolve()), 2, 1))
    text = render_html(gather(root)).replace("setupGraph();", "setupGraph(); undefinedThing();")
    page = tmp_path / "broken.html"
    page.write_text(text, encoding="utf-8")
    proc = chromium("--dump-dom", page.as_uri(), home=tmp_path)
    head = proc.stdout[: proc.stdout.index(">", proc.stdout.index("<html")) + 1]
    assert 'data-report-ready="1"' not in head
    assert "data-report-error" in head or console_errors(proc.stderr)


def test_screenshot(tmp_path: Path) -> None:
    root = tmp_path / "project"
    synth_report(root)
    page = tmp_path / "report.html"
    page.write_text(render_html(gather(root)), encoding="utf-8")
    shot = tmp_path / "shot.png"
    proc = chromium(f"--screenshot={shot}", page.as_uri(), home=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
