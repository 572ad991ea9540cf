import os
from pathlib import Path


def config_path() -> Path:
    explicit = os.environ.get("APP_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "corpusapp" / "config.toml"
