"""Renders API documents from a template next to the package."""

import os

template_path = os.path.join(os.path.dirname(__file__), "templates", "api.rst")


def render(title):
    with open(template_path, encoding="utf-8") as handle:
        return handle.read().format(title=title)
