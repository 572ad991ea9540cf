"""Runs the build command in a shell that sees the environment."""

import subprocess


def build_mode():
    """The mode the build reads from ``BUILD_MODE`` in a child shell."""
    done = subprocess.run(
        ["sh", "-c", 'printf %s "${BUILD_MODE:-debug}"'], capture_output=True, text=True
    )
    return done.stdout
