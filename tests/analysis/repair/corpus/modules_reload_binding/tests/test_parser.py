import pytest

from cfgparse.errors import ConfigError
from cfgparse.parser import parse_line


def test_parse_line():
    assert parse_line("a = 1") == ("a", "1")


def test_bad_line_raises():
    with pytest.raises(ConfigError):
        parse_line("nonsense")
