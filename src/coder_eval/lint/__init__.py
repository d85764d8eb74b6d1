"""`coder-eval lint`: mechanical checks that a task can fail, can pass, and does not give itself away."""
