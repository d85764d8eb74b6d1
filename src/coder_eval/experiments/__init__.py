"""Experiments: building variant and experiment summaries, and the statistics their reports show."""
