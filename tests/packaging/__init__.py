"""The package's layout, packaging and installation."""
