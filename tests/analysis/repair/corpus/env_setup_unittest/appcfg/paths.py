import os


def cache_dir():
    """Where the app caches downloads (XDG base directories)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "appcfg")
