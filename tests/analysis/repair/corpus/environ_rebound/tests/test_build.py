import buildtool


def test_release_mode_reaches_the_shell(monkeypatch):
    monkeypatch.setenv("BUILD_MODE", "release")
    assert buildtool.build_mode() == "release"
