"""Run records on disk: layout, atomic writes, the run summary builder."""
