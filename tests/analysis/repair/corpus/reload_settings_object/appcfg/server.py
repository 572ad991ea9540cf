"""Imported only by the tests that start the app (after settings were reloaded)."""

from appcfg.settings import settings


def banner() -> str:
    return f"retries={settings.retries}"
