from .response import *  # noqa: F403
