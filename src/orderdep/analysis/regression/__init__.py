"""Dependent-test-aware regression testing (paper 002): coverage and evaluation."""
