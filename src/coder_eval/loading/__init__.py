"""YAML task files to validated, dataset-expanded, filtered tasks."""
