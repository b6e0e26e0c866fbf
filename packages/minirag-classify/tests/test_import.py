"""Skeleton check: the package installs and imports (its features arrive with their issue)."""

import importlib


def test_package_imports():
    assert importlib.import_module("minirag_classify").__doc__
