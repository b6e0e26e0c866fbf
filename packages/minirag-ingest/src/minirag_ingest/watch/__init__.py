"""Watch mode: the index follows the roots without being asked."""
