import os
from pathlib import Path

from reports.build import build_in_scratch_dir, total

ROOT = Path(__file__).resolve().parent.parent


def test_total_from_relative_path():
    assert total() == 42


def test_cwd_is_project_root():
    assert Path(os.getcwd()) == ROOT


def test_build_in_scratch_dir():
    assert build_in_scratch_dir() == len("report\n")


def test_relative_output(tmp_path):
    out = Path("build") / "out.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text("ok", encoding="utf-8")
    assert (ROOT / "build" / "out.txt").read_text(encoding="utf-8") == "ok"


def test_monkeypatched_chdir(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert Path.cwd() == tmp_path
