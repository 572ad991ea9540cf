import functools
import json
import os


@functools.cache
def settings():
    path = os.path.join(os.path.expanduser("~"), ".toolcfg.json")
    defaults = {"color": True, "width": 80}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            defaults.update(json.load(f))
    return defaults
