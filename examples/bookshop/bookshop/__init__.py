"""Catalogue, cart and pricing for a small online bookshop."""

__version__ = "1.2.0"
