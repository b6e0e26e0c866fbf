"""The file types minirag reads: what the scan lists and what conversion accepts."""

from __future__ import annotations

#: Documents converted without any extra (markitdown, our WebVTT and notebook readers).
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".md",
        ".markdown",
        ".txt",
        ".pdf",
        ".docx",
        ".pptx",
        ".xlsx",
        ".html",
        ".htm",
        ".csv",
        ".epub",
        ".ipynb",
        ".vtt",
    }
)

#: The image types the [ocr] extra adds. Without an engine they are not scanned at all; sync
#: uses this list to keep (and count as unreadable) images indexed earlier.
IMAGE_EXTENSIONS: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".tiff", ".tif", ".bmp", ".webp"}
)
