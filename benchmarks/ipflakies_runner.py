"""Run the ipflakies CLI with its patcher switched off (for bench_classify.py).

Runs under ipflakies' own interpreter (it pins pytest 6), from the project directory and
on a terminal (ipflakies reads the terminal size when imported), e.g.::

    script -qec "/tmp/ipf/bin/python benchmarks/ipflakies_runner.py -t TEST" /dev/null

Arguments are those of ``python -m ipflakies``. ``--no-patch`` replaces ipflakies'
patch generation (``fix_victim`` / ``fix_brittle``) with a no-op, so a ``-t TEST`` run
only detects the kind, the polluters or state-setters and the cleaners: the work
``orderdep detect --classify`` does. Without a patch ipflakies also never stops early at
a patch that fixes every polluter, so it looks for the cleaners of every polluter.
"""

from __future__ import annotations

import sys
from typing import Any


def _no_patch(*_args: Any, **_kwargs: Any) -> None:
    return None


def main() -> None:
    argv = sys.argv[1:]
    patch = "--no-patch" not in argv
    argv = [a for a in argv if a != "--no-patch"]
    # Imported here: it reads the terminal size on import. Not installed with orderdep.
    from ipflakies import main as ipf  # type: ignore[import-not-found]

    if not patch:
        ipf.fix_victim = _no_patch
        ipf.fix_brittle = _no_patch
    sys.argv = ["ipflakies", *argv]
    ipf.main()


if __name__ == "__main__":
    main()
