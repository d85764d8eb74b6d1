"""Running and grading tasks: the per-task pipeline and what drives it."""
