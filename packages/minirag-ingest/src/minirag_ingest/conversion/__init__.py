"""Turning a file into Markdown (in worker processes), with its pages, tables and pictures."""
