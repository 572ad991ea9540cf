from plugins import Plugin


def test_no_plugins_by_default():
    assert Plugin.names() == []


def test_a_plugin_registers_itself():
    class Csv(Plugin):
        def parse(self, line):
            return line.split(",")

    rows = [Csv().parse(f"{i},x") for i in range(10000)]
    assert len(rows) == 10000
    assert Plugin.names() == ["Csv"]
