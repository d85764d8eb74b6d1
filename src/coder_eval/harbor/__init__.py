"""Interop with Harbor (Terminal-Bench's task format): export our tasks, import theirs, write rewards."""
