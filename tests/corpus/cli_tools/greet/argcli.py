from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Optional

CALLS: list[list[str]] = []


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Print a greeting.")
    parser.add_argument("--name", default="world")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--shout", action="store_true")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)  # None: sys.argv[1:]
    CALLS.append([args.name, str(args.count)])
    text = f"Hello, {args.name}!"
    for _ in range(args.count):
        print(text.upper() if args.shout else text)
    return 0
