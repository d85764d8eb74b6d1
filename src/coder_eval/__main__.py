"""`python -m coder_eval` runs the CLI."""

from coder_eval.cli.app import main

main()
