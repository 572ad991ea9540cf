"""Saving results."""

import json
import os

__all__ = ["save_group", "fname"]


def fname(name, ext):
    return name if name.endswith("." + ext) else name + "." + ext


def save_group(group, file_name, file_path, save_results=False, save_settings=False):
    data = {}
    if save_results:
        data["results"] = group["results"]
    if save_settings:
        data["settings"] = group["settings"]
    with open(os.path.join(file_path, fname(file_name, "json")), "w") as f:
        json.dump(data, f)
