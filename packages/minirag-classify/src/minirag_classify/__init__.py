"""minirag-classify."""
