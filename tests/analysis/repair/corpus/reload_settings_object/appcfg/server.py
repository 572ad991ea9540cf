"""The app's entry point: it imports the settings object at import."""

from appcfg.settings import settings


def banner() -> str:
    return f"retries={settings.retries}"
