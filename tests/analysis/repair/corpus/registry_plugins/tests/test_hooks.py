import hooks


def test_custom_plugin():
    @hooks.plugin
    def exclaim(text):
        return text + "!"

    assert hooks.run_all("hi") == "HI!"


def test_builtins_only():
    assert hooks.run_all("hi") == "HI"
