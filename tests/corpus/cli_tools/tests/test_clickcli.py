import pytest
from click.testing import CliRunner

from greet.clickcli import HISTORY, cli, use_profile


def test_runner_default():
    result = CliRunner().invoke(cli, [])
    assert result.exit_code == 0
    assert result.output == "Hello, world!\n"


def test_runner_env():
    result = CliRunner(env={"GREET_NAME": "eve"}).invoke(cli, ["--times", "2"])
    assert result.output == "Hello, eve!\nHello, eve!\n"


def test_deploy_profile():
    use_profile({"name": "mallory"})
    assert CliRunner().invoke(cli, []).output == "Hello, mallory!\n"


def test_standalone_reads_sys_argv(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 0
    assert capsys.readouterr().out == "Hello, world!\n"


def test_usage_names_the_program(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--bogus"])
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("Usage: python -m pytest [OPTIONS]")


def test_history_starts_empty():
    CliRunner().invoke(cli, ["--name", "zed"])
    assert HISTORY == ["zed"]
