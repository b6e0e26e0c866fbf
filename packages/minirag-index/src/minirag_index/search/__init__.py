"""Answering questions of the stored chunks: hybrid fusion, filters, scope, mentions, look-alikes,
rebuilt sections."""
