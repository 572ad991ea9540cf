import shutil
import tempfile
from pathlib import Path

from reports import cache


def test_cache_dir_in_tempdir():
    assert Path(cache.CACHE_DIR).parent == Path(tempfile.gettempdir())


def test_cache_starts_empty():
    assert cache.names() == []


def test_cache_put():
    cache.put("summary.txt", "42")
    assert cache.names() == ["summary.txt"]


def test_cache_reads_summary():
    assert cache.get("summary.txt") == "42"


def test_cache_cleanup():
    shutil.rmtree(cache.CACHE_DIR)
    assert not Path(cache.CACHE_DIR).exists()
