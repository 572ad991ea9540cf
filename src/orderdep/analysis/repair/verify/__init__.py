"""Whether a patch holds: one patch on a patched copy of the project, then every patch together (the largest set that holds)."""
