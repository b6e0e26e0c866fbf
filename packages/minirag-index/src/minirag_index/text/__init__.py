"""Text analysis shared by indexing and querying: folding, keyword terms, stop words, token
counts."""
