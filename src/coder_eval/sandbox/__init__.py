"""Sandboxes: where a task's files live while the agent works and the criteria grade."""
