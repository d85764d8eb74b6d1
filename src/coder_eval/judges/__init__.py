"""Judge and simulated-user plumbing: model routes, prompts, verdicts, transcripts and spend."""
