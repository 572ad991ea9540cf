"""Decodes meter frames; ``debug`` switches on tracing for the whole process."""

import collections

g = collections.namedtuple("Globals", "")
g.debug = False


def debug(state):
    g.debug = state
