"""Other formats' eval suites as task files and an experiment: `claude plugin eval` suites
(`plugin_suite.py`) and skill-creator's `evals/evals.json` (`skill_evals.py`)."""
