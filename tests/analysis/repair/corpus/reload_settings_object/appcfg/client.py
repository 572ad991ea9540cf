"""A client that reads the settings object it imported."""

from appcfg.settings import settings


def attempts() -> int:
    return settings.retries + 1
