"""A small daemon: exit hooks and signal handlers."""
