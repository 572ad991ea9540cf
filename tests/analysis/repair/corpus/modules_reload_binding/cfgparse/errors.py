class ConfigError(ValueError):
    """A malformed configuration line."""
