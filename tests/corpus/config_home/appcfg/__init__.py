"""Configuration read from the environment and the user's XDG config directory."""
