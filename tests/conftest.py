"""orderdep's own test suite.

``corpus/`` holds small test projects in the shapes of real-world suites; they are data
for the engine's fidelity tests (tests/engine/test_fidelity_corpus.py), which run them
in many orders. They are never collected as part of this suite.
"""

collect_ignore_glob = ["corpus/*"]
