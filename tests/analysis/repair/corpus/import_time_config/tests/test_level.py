import importlib
import os

from logcfg import config


def test_level_from_env():
    os.environ["LOGCFG_LEVEL"] = "debug"
    importlib.reload(config)
    assert config.LEVEL == "DEBUG"
    del os.environ["LOGCFG_LEVEL"]


def test_default_level():
    assert config.LEVEL == "INFO"
