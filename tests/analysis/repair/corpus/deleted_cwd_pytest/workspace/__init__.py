from pathlib import Path


def find_config(name="workspace.toml"):
    """Look for the config file from the current directory up."""
    here = Path.cwd()
    for d in [here, *here.parents]:
        if (d / name).exists():
            return d / name
    return None
