"""The board: a local web UI (and static export) over run directories, read as they are on disk."""
