import pytest

import exporters


def test_register_builtins():
    exporters.register_builtins()
    assert {"csv", "tsv"} <= set(exporters.FORMATS)


@pytest.mark.parametrize(("fmt", "sep"), [("csv", ","), ("tsv", "\t")])
def test_export(fmt, sep):
    assert exporters.export(fmt, [[1, 2]]) == f"1{sep}2"
