"""`coder-eval migrate`: rewrite task files written for the reference system into today's forms.

`roundtrip.py` reads and writes YAML keeping comments, key order, quoting and indentation;
`rules.py` holds the rewrites (removed reference forms, legacy criterion aliases, stale keys);
`files.py` applies them to files, shows the diff and writes the result in place or elsewhere.
"""
