"""The seams of the optional extras: the plug-in contracts, OCR, and the install hint."""
