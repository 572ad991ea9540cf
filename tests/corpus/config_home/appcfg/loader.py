from __future__ import annotations

import ast
import functools
import os
from typing import Any, Optional

from appcfg.paths import config_path

DEFAULTS: dict[str, Any] = {"theme": "light", "retries": 3}


def parse_toml(text: str) -> dict[str, Any]:
    """The flat ``key = value`` TOML the application writes (tomllib where available)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
        return {k.strip(): ast.literal_eval(v.strip()) for k, v in pairs}
    return tomllib.loads(text)


def read_config(path: Optional[os.PathLike[str]] = None) -> dict[str, Any]:
    target = config_path() if path is None else path
    settings = dict(DEFAULTS)
    try:
        with open(target, encoding="utf-8") as fh:
            settings.update(parse_toml(fh.read()))
    except FileNotFoundError:
        pass
    return settings


@functools.lru_cache(maxsize=32)
def load_config() -> dict[str, Any]:
    return read_config()


# What the process saw when it started: other modules read these names.
IMPORT_SETTINGS = read_config()
DEBUG = os.environ.get("CORPUSAPP_DEBUG") == "1"
