import os

DEFAULTS = {"APP_HOST": "localhost", "APP_PORT": "80", "APP_MODE": "dev"}


def load():
    return {key: os.environ.get(key, default) for key, default in DEFAULTS.items()}
