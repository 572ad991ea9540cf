"""Imported on first use only (not by any test module at import)."""

from notify.console import make_console

console = make_console()
