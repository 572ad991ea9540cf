import importlib
import sys

import exporters
from exporters import models
from exporters.builtin import CsvExporter
from exporters.models import Record
from exporters.registry import get


def test_record_class_identity():
    assert isinstance(models.make_record(id=1), Record)


def test_reload_models():
    reloaded = importlib.reload(models)
    assert reloaded.Record is not Record


def test_optional_not_imported_yet():
    assert "exporters.optional" not in sys.modules


def test_load_optional_exporter():
    module = exporters.load_optional()
    assert get("parquet") is module.ParquetExporter


def test_fresh_import_of_builtin():
    from exporters.registry import REGISTRY

    sys.modules.pop("exporters.builtin")
    for name in ("csv", "json"):
        REGISTRY.pop(name)
    fresh = importlib.import_module("exporters.builtin")
    assert get("csv") is fresh.CsvExporter


def test_csv_exporter_identity():
    assert get("csv") is CsvExporter
