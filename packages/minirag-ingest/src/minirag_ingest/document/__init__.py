"""A converted document's title and date, and the pipeline that stores its chunks."""
