"""Fetching a web page safely for ingest_url, and converting it."""
