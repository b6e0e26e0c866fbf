"""Embedding models: loading, describing and optimising them, offline rules."""
