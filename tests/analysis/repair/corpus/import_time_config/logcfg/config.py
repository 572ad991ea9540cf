import os

LEVEL = os.environ.get("LOGCFG_LEVEL", "INFO").upper()
