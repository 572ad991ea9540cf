"""Thin shells over the library: CLI, pytest plugin, reports."""
