"""``corpus/`` holds small projects with order-dependent tests in real-world shapes; they
are data for tests/analysis/repair/test_corpus_repair.py and never collected here."""

collect_ignore_glob = ["corpus/*"]
