"""Exporters found through a registry filled by a decorator."""

import importlib


def load_optional():
    """Import the optional exporters on first use."""
    return importlib.import_module("exporters.optional")
