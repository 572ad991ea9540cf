import pytest

import exporters.builtin  # noqa: F401  (registers the built-in exporters)
from exporters.registry import REGISTRY, get, register


def test_builtin_exporters():
    assert sorted(REGISTRY) == ["csv", "json"]


def test_register_custom_exporter():
    @register("xml")
    class XmlExporter:
        suffix = ".xml"

    assert get("xml") is XmlExporter


def test_duplicate_name_is_refused():
    with pytest.raises(ValueError, match="already registered"):

        @register("csv")
        class OtherCsv:
            pass


def test_unknown_exporter_lists_known_ones():
    with pytest.raises(LookupError) as info:
        get("yaml")
    assert str(info.value) == "no exporter 'yaml'; known: ['csv', 'json']"
