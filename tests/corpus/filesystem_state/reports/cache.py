import os
import tempfile

CACHE_DIR = tempfile.mkdtemp(prefix="reports-")


def put(name: str, text: str) -> str:
    path = os.path.join(CACHE_DIR, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def get(name: str) -> str:
    with open(os.path.join(CACHE_DIR, name), encoding="utf-8") as fh:
        return fh.read()


def names() -> list[str]:
    return sorted(os.listdir(CACHE_DIR))
