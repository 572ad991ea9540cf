import importlib

import appcfg.settings
from appcfg import server


def test_settings_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("APP_RETRIES", "5")
    importlib.reload(appcfg.settings)
    importlib.reload(server)  # so that the app sees the new settings
    assert server.banner() == "retries=5"
