import os
import shutil
import tempfile

import workspace


def test_finds_nothing_in_scratch_dir():
    scratch = tempfile.mkdtemp()
    os.chdir(scratch)
    assert workspace.find_config() is None
    shutil.rmtree(scratch)


def test_search_starts_at_cwd():
    assert workspace.find_config("no-such-file.toml") is None
