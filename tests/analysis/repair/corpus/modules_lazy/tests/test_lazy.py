import sys

import charts


def test_render():
    assert charts.render([1, 2, 3]) == "###"


def test_backend_is_imported_lazily():
    assert "charts.backend" not in sys.modules
