import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="greet")
    parser.add_argument("--shout", action="store_true")
    parser.add_argument("name", nargs="?", default="world")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    text = f"hello {args.name}"
    return text.upper() if args.shout else text
