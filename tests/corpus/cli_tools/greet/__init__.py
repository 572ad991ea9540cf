"""Greeting command-line tools: one with argparse, one with click."""
