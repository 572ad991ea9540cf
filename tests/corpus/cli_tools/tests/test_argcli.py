import sys

import pytest

from greet.argcli import CALLS, build_parser, main


def test_main_with_argv(capsys):
    assert main(["--name", "ann", "--count", "2"]) == 0
    assert capsys.readouterr().out == "Hello, ann!\nHello, ann!\n"


def test_main_reads_sys_argv(capsys):
    assert main() == 0
    assert capsys.readouterr().out == "Hello, world!\n"


def test_parser_defaults():
    args = build_parser().parse_args()
    assert vars(args) == {"name": "world", "count": 1, "shout": False}


def test_prog_is_taken_from_sys_argv():
    assert build_parser().prog == "__main__.py"


def test_script_style_invocation(capsys):
    sys.argv = ["greet", "--shout"]  # as a console script would be called; never restored
    assert main() == 0
    assert capsys.readouterr().out == "HELLO, WORLD!\n"


def test_monkeypatched_argv(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["greet", "--name", "bob"])
    main()
    assert capsys.readouterr().out == "Hello, bob!\n"


def test_bad_count_exits(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--count", "many"])
    assert info.value.code == 2
    assert "invalid int value: 'many'" in capsys.readouterr().err


def test_first_call_recorded():
    main(["--name", "first"])
    assert CALLS == [["first", "1"]]
