from voice import Commands


def test_repeat_is_top_level():
    Commands.add(["repeat"], top_level=True)


def test_pause_is_not_top_level():
    Commands.add(["pause"])
    assert len(Commands.top_level) == 1


def test_clear():
    Commands.clear()
