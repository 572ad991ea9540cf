"""Notifications: logging set up at import, and a console that keeps its stream."""

import logging

logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")

logger = logging.getLogger("notify")
stderr_handler = logging.StreamHandler()  # sys.stderr as it is at import
stderr_handler.setLevel(logging.WARNING)
logger.addHandler(stderr_handler)
