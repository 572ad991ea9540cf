"""Quantities with units."""
