from voice import Commands


def test_editor_commands():
    Commands.add(["save", "close"], app="editor")
    assert Commands.recognise("save", app="editor")
    assert not Commands.recognise("save")


def test_clear():
    Commands.clear()
