from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from state_helpers import STATE_MODULE, Project, unique_name


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    name = unique_name(str(tmp_path))
    root = tmp_path / "proj"
    proj = Project(root, name)
    proj.write(f"{name}/__init__.py", "")
    proj.write(f"{name}/state.py", STATE_MODULE)
    proj.tmp.mkdir()
    proj.home.mkdir()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield proj
    finally:
        sys.path.remove(str(root))
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
