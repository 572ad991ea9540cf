"""Application settings with defaults a user file may override."""

DEFAULTS = {"theme": "light", "page_size": 20}


def load_settings(overrides=None):
    settings = dict(DEFAULTS)
    settings.update(overrides or {})
    return settings


def page_count(settings, items):
    return -(-items // settings["page_size"])
