"""Application settings, kept as class attributes (read by every Store)."""


class Settings:
    currency = "EUR"
    page_size = 20
    read_only = False
