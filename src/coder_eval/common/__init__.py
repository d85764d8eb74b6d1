"""Neutral helpers every stage may use: ignore rules, subprocesses, secrets, argv patterns, suggestions,
and a pause of the cyclic garbage collector for bounded bulk loads.

Nothing here imports another package of Coder Eval, so any layer can depend on it.
"""
