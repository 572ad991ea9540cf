"""Small helpers, one submodule each."""
