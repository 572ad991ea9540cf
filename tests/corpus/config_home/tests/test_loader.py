import importlib
from pathlib import Path

from appcfg import loader
from appcfg.loader import DEFAULTS, load_config, read_config


def _write_user_config(text):
    target = Path.home() / ".config" / "corpusapp" / "config.toml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def test_defaults_without_user_config():
    assert read_config() == DEFAULTS


def test_user_config_in_home():
    _write_user_config('theme = "dark"\n')
    assert read_config()["theme"] == "dark"


def test_cached_loader_defaults():
    assert load_config()["theme"] == "light"


def test_cached_loader_after_user_config():
    _write_user_config("retries = 9\n")
    assert load_config()["retries"] == 9


def test_settings_cached_at_import():
    assert loader.IMPORT_SETTINGS == DEFAULTS


def test_debug_off_by_default():
    assert loader.DEBUG is False


def test_debug_switched_on_by_reload(monkeypatch):
    monkeypatch.setenv("CORPUSAPP_DEBUG", "1")
    importlib.reload(loader)
    assert loader.DEBUG is True
