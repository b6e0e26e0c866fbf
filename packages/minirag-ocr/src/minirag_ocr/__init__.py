"""minirag-ocr."""
