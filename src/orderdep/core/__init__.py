"""The pure core: algorithms over plain test-id strings. Nothing here imports pytest."""
