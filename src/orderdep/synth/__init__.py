"""Synthetic suites with planted order dependencies, for orderdep's own tests and benchmarks."""
