"""Shapes by name: each shape module registers itself when it is imported."""

KINDS = {}


def make(kind, size):
    return KINDS[kind](size)
