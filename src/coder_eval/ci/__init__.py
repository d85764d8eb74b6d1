"""CI integration: the verdict a CI job takes from a finished run directory."""
