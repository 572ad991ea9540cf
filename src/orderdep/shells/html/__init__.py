"""The HTML report of ``orderdep report``: one self-contained page built from a project's
report and the outputs of ``orderdep pradet``, ``orderdep fix`` and ``orderdep evaluate``."""

from orderdep.shells.html.inputs import ReportInputs, gather
from orderdep.shells.html.page import render_html

__all__ = ["ReportInputs", "gather", "render_html"]
