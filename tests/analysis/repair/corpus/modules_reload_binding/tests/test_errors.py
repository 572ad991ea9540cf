import importlib

from cfgparse import errors


def test_error_module_reloads_cleanly():
    importlib.reload(errors)
    assert issubclass(errors.ConfigError, ValueError)
