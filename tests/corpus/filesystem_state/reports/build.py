import csv
import os
import shutil
import tempfile


def total(path: str = "data/sales.csv") -> int:
    with open(path, newline="", encoding="utf-8") as fh:
        return sum(int(row["amount"]) for row in csv.DictReader(fh))


def build_in_scratch_dir() -> int:
    """Render the report in a scratch directory (which it removes, but never leaves)."""
    scratch = tempfile.mkdtemp(prefix="scratch-")
    os.chdir(scratch)
    with open("report.txt", "w", encoding="utf-8") as fh:
        fh.write("report\n")
    size = os.path.getsize("report.txt")
    shutil.rmtree(scratch)
    return size
