"""The tests, in folders mirroring the package (see tests/packaging/test_layout.py)."""
