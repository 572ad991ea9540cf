"""Table schemas; a project may override how they are named and built."""


def table_name():
    return "migrations"


def table_schema():
    return ("id", "version", "applied")


def describe():
    return f"{table_name()}{table_schema()}"
