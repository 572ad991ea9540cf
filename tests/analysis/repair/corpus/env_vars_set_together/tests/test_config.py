import os

from app.config import DEFAULTS, load


def forget_environment():
    try:
        for key in DEFAULTS:
            del os.environ[key]
    except KeyError:  # stops at the first variable that is not set
        pass


def test_from_environment():
    os.environ.update(APP_HOST="example.org", APP_PORT="8080", APP_MODE="prod")
    assert load()["APP_PORT"] == "8080"


def test_default_port():
    assert load()["APP_PORT"] == "80"


def test_all_defaults():
    forget_environment()
    assert load() == DEFAULTS
