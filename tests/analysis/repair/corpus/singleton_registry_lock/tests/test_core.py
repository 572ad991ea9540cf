from voice import Commands


def test_core_commands():
    Commands.add(["undo", "redo"])
    assert Commands.recognise("undo")


def test_clear():
    Commands.clear()
