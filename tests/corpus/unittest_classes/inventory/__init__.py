"""A tiny stock-keeping application."""
