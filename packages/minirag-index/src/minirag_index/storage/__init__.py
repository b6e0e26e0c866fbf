"""The LanceDB table: its columns, indexes, writes and where it lives."""
