"""What a folder holds, for tests that must show nothing was written there."""

from __future__ import annotations

from pathlib import Path


def files_under(folder: Path) -> set[tuple[str, int, int]]:
    """Every file below ``folder`` with its size and modification time: equal before and after
    means nothing was written there."""
    return {
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }
