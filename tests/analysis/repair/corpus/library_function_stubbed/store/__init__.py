"""Files kept under a directory, created on first use."""

import os


def ensure_dir(path):
    if not os.path.exists(path):
        os.makedirs(path)
    return path


def has(path):
    return os.path.exists(path)
