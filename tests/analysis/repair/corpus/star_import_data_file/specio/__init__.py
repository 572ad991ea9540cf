"""Spectra fitted in groups, saved to and loaded from JSON files."""
