"""A brittle that fails alone only once the whole suite is collected (another test
module's import-time code sets the state it fails on) is run once as ``pytest ID`` runs
it, and the report says that it passes there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from orderdep.core.report import OWN_FILE_KEY, ODFinding
from orderdep.shells.explain import sentence

if TYPE_CHECKING:
    from conftest import CliRunner

SAID = "but passes alone as `pytest ID` runs it"


def test_the_sentence_says_so_only_when_it_passed_there() -> None:
    finding = ODFinding("t.py::test_b", "brittle", state_setters=["t.py::test_a"])
    assert SAID not in sentence(finding)
    finding.extras[OWN_FILE_KEY] = "failed"
    assert SAID not in sentence(finding)
    finding.extras[OWN_FILE_KEY] = "passed"
    assert sentence(finding).startswith("fails unless one of 1 state-setter runs first; " + SAID)


def _project(root: Path) -> None:
    (root / "tests").mkdir(parents=True)
    (root / "net.py").write_text("NETWORK = 'main'\nCACHE = {}\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\ntestpaths = tests\n")
    (root / "tests" / "test_a_other.py").write_text(
        "import net\n\nnet.NETWORK = 'test'  # a helper selecting a network at import\n\n\n"
        "def test_other():\n    pass\n"
    )
    (root / "tests" / "test_b_main.py").write_text(
        "import net\n\n\ndef test_fill():\n    net.CACHE['k'] = 1\n\n\n"
        "def test_select():\n    net.NETWORK = 'main'\n\n\n"
        "def test_main():\n    assert net.NETWORK == 'main'\n\n\n"
        "def test_cached():\n    assert net.CACHE.get('k') == 1\n"
    )


@pytest.mark.slow
def test_detect_classify_runs_each_brittle_as_pytest_id_does(
    tmp_path: Path, cli: CliRunner, no_hypothesis_plugin: None
) -> None:
    root = tmp_path / "p"
    _project(root)
    code, out, err = cli("detect", root, "--classify", "--seed", "1")
    assert code == 1, out + err
    report = json.loads((root / ".orderdep" / "report.json").read_text())
    said = {f["test"]: f.get(OWN_FILE_KEY) for f in report["od_tests"] if f["kind"] == "brittle"}
    main, cached = "tests/test_b_main.py::test_main", "tests/test_b_main.py::test_cached"
    assert said.get(main) == "passed", said  # only its file collected: nothing selects 'test'
    assert said.get(cached) == "failed", said  # a brittle there too
    assert "running 2 brittle test(s) alone as `pytest ID` runs them" in err, err
    lines = out.splitlines()
    at = lines.index(f"  {main}  [brittle]")
    assert SAID in lines[at + 1], lines[at : at + 3]
    at = lines.index(f"  {cached}  [brittle]")
    assert SAID not in lines[at + 1]
