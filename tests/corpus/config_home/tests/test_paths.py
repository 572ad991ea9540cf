import os
from pathlib import Path

from appcfg.paths import config_path


def test_default_path_under_home():
    assert config_path() == Path.home() / ".config" / "corpusapp" / "config.toml"


def test_xdg_config_home(tmp_path):
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path)  # left behind
    assert config_path() == tmp_path / "corpusapp" / "config.toml"


def test_app_config_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("APP_CONFIG", str(tmp_path / "explicit.toml"))
    assert config_path().name == "explicit.toml"


def test_home_starts_without_app_files():
    assert not (Path.home() / ".corpusapprc").exists()
    assert not (Path.home() / ".config" / "corpusapp").exists()


def test_write_rc_file():
    rc = Path.home() / ".corpusapprc"
    rc.write_text("theme = 'dark'\n")
    assert os.path.expanduser("~/.corpusapprc") == str(rc)
