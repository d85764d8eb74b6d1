"""Config resolution: experiments, the five-layer merge and `-D` command-line overrides.

Submodules are imported directly (`coder_eval.config.merge`, `.overrides`, `.resolve`,
`.experiments`); this package module stays empty so the models can import the schema
helpers without an import cycle.
"""
