import sys

from greet import cli


def test_shout_from_command_line():
    sys.argv = ["greet", "--shout", "ann"]
    assert cli.main() == "HELLO ANN"


def test_default_greeting():
    sys.argv = ["greet"]
    assert cli.main() == "hello world"


def test_greeting_without_arguments():
    assert cli.main() == "hello world"
