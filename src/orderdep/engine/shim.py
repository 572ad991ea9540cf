"""orderdep for a test interpreter that does not have it installed.

Command-line tools are installed apart from the projects they work on (pipx, another
venv), so the interpreter that runs a project's tests (``--python``) often has pytest and
the project but not orderdep. What runs inside its test processes (the child plugin, the
probes) needs only the standard library and pytest, so orderdep lends it its own package:
:func:`shim_dir` is a directory holding nothing but a link named ``orderdep`` to this
installation's package, to put first on that interpreter's ``PYTHONPATH``. Nothing else of
orderdep's environment (click, rich, ...) becomes visible to the tests.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

# Not "orderdep-": directories with that prefix are working directories, swept when
# their owner is gone (engine.tempdirs); a shim is shared and kept.
PREFIX = "orderdep_shim-"


def package_dir() -> Path:
    """This installation's ``orderdep`` package directory."""
    return Path(__file__).resolve().parent.parent


def shim_dir() -> Path:
    """The directory to put on ``PYTHONPATH`` (made once per installation and user)."""
    package = package_dir()
    digest = hashlib.sha1(str(package).encode()).hexdigest()[:12]
    root = (
        Path(tempfile.gettempdir())
        / f"{PREFIX}{os.getuid() if hasattr(os, 'getuid') else 0}-{digest}"
    )
    link = root / "orderdep"
    if not (link.is_symlink() and link.resolve() == package):
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".orderdep-{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(package, target_is_directory=True)
        tmp.replace(link)  # atomic: another orderdep may be making the same link
    return root


def with_shim(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the shim first on ``PYTHONPATH``."""
    rest = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": os.pathsep.join([str(shim_dir()), *([rest] if rest else [])])}


__all__ = ["package_dir", "shim_dir", "with_shim"]
