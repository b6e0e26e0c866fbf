"""minirag-ingest."""
