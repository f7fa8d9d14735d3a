"""Hostile inputs: names, files, parameters and sessions that try to break an engine."""
