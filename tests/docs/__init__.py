"""The documentation's examples and console sessions, run as written."""
