"""Helpers shared by the tests of every package (the root conftest puts this on sys.path)."""
