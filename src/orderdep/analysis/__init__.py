"""Analyses: algorithms that run orders through an :class:`~orderdep.engine.Executor`.

Each module is one analysis (e.g. :mod:`orderdep.analysis.classify`, which explains
detected OD tests); they talk only to an executor, so they are tested against the pure
:class:`~orderdep.synth.model.ModelExecutor`.
"""
