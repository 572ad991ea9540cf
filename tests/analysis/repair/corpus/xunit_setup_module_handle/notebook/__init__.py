"""A shell over a notebook file: pages of items, stored as JSON.

Like many storage libraries, a file is opened once per process: opening it again while a
handle is open shares that handle (and its unsaved state), and it cannot be created anew
while open.
"""

import json
import os

_OPEN = {}  # absolute path -> open Handle


class Handle:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.pages = json.load(f)

    def flush(self):
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(self.pages, f)

    def close(self):
        self.flush()
        _OPEN.pop(os.path.abspath(self.path), None)


def open_notebook(path):
    key = os.path.abspath(path)
    if key not in _OPEN:
        _OPEN[key] = Handle(path)
    return _OPEN[key]


def create(path, pages):
    if os.path.abspath(path) in _OPEN:
        raise OSError(f"unable to create {path!r}: it is already open")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(pages, f)


class Shell:
    def __init__(self):
        self.notebook = None

    def do_open(self, path):
        self.notebook = open_notebook(path)

    def do_ls(self):
        print(" ".join(sorted(self.notebook.pages)))

    def do_cat(self, page):
        for item in self.notebook.pages[page]:
            print(item)

    def do_rm(self, page, item=None):
        if item is None:
            del self.notebook.pages[page]
        else:
            self.notebook.pages[page].remove(item)
        self.notebook.flush()

    def do_close(self):
        if self.notebook is not None:
            self.notebook.close()
            self.notebook = None
