"""The coder-eval command line: one thin module per command."""
