import importlib

import appcfg.settings


def test_settings_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("APP_RETRIES", "5")
    importlib.reload(appcfg.settings)
    from appcfg import server

    assert server.banner() == "retries=5"
