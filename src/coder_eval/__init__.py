"""Coder Eval: evaluate AI coding agents, skills and prompts in sandboxes."""

__version__ = "0.1.0"
