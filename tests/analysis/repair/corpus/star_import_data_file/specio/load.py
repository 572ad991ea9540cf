"""Loading results."""

import json
import os

from specio.io import fname


def load_group(file_name, file_path):
    with open(os.path.join(file_path, fname(file_name, "json"))) as f:
        return json.load(f)
