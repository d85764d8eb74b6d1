"""Agents: the registry of agent kinds and the plugin loader."""
