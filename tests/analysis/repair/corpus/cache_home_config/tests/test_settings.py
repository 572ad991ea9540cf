import json
import os

import toolcfg


def test_user_settings(tmp_path):
    (tmp_path / ".toolcfg.json").write_text(json.dumps({"width": 120}))
    os.environ["HOME"] = str(tmp_path)
    assert toolcfg.settings()["width"] == 120


def test_default_width():
    assert toolcfg.settings()["width"] == 80
