"""``orderdep report`` through ``main(argv)``, and the report command the other commands print."""

from __future__ import annotations

import shlex
import webbrowser
from pathlib import Path

import pytest
from test_cli_repair import BRITTLE, EMPTY, make_project

from orderdep.core.report import Report, load_report, save_report
from orderdep.shells.cli import main


def html_command(out: str) -> list[str]:
    """The one ``HTML report: orderdep report ...`` line, as argv for ``main``."""
    (line,) = [line for line in out.splitlines() if line.startswith("HTML report: ")]
    parts = shlex.split(line.split(": ", 1)[1])
    assert parts[:2] == ["orderdep", "report"]
    return parts[1:]


def feed_back(out: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run the printed report command; return the page it wrote."""
    argv = html_command(out)
    assert main(argv) == 0
    written = capsys.readouterr().out
    target = Path(argv[argv.index("--html") + 1])
    assert written.startswith(f"wrote {target} (")
    return target.read_text(encoding="utf-8")


def test_every_command_that_writes_the_report_prints_a_command_that_renders_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop", with_report=False)
    assert main(["detect", str(root), "--classify", "--seed", "3"]) == 1
    page = feed_back(capsys.readouterr().out, capsys)
    assert EMPTY in page and BRITTLE in page and 'class="badge victim"' in page

    assert main(["classify", str(root), "--alone-runs", "2", "--redo"]) == 1
    page = feed_back(capsys.readouterr().out, capsys)
    assert 'class="badge brittle"' in page

    assert main(["pradet", str(root)]) == 1
    page = feed_back(capsys.readouterr().out, capsys)
    assert 'id="pradet-section"' in page and "app.jobs._JOBS" in page

    assert main(["fix", str(root)]) == 1  # not applied: the OD tests are left
    page = feed_back(capsys.readouterr().out, capsys)
    assert page.count('<pre class="diff highlight">') == 2
    assert "verified in" in page


def test_custom_report_and_html_paths_and_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "shop")
    other = tmp_path / "kept" / "findings.json"
    save_report(other, load_report(root / ".orderdep" / "report.json"))
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    target = tmp_path / "out" / "page.html"
    argv = ["report", str(root), "--report", str(other), "--html", str(target), "--open"]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"wrote {target} (2 order-dependent tests)\n"
    assert opened == [target.resolve().as_uri()]
    # without --html: next to the report
    assert main(["report", str(root), "--report", str(other)]) == 0
    assert (tmp_path / "kept" / "findings.html").is_file()
    assert not (root / ".orderdep" / "report.html").exists()


def test_without_a_report_it_says_to_run_detect_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "shop", with_report=False)
    assert main(["report", str(root)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("orderdep: error: no report at ")
    assert f"run `orderdep detect {root}` first" in line
    assert not (root / ".orderdep" / "report.html").exists()


def test_without_jinja2_the_report_names_the_extra_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jinja2 is the ``html`` extra (a project's venv may pin an older one): without it the
    line commands print names the extra, and ``orderdep report`` says what to install."""
    import importlib.util
    import sys

    from orderdep.shells.options import html_report_line

    assert html_report_line(tmp_path).startswith("HTML report: orderdep report ")
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "jinja2" else real(name, *a)
    )
    line = html_report_line(tmp_path)
    assert line.startswith("HTML report: pip install 'orderdep[html]', then orderdep report "), line
    for name in [m for m in sys.modules if m == "jinja2" or m.startswith("orderdep.shells.html")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 raises ImportError
    save_report(tmp_path / ".orderdep" / "report.json", Report(str(tmp_path), ["t.py::t"], []))
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "the HTML report needs Jinja2" in err and "pip install 'orderdep[html]'" in err, err
