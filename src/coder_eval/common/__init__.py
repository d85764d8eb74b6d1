"""Neutral helpers every stage may use: ignore rules, subprocesses, secrets, argv patterns, suggestions.

Nothing here imports another package of Coder Eval, so any layer can depend on it.
"""
