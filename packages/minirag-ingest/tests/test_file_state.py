"""The state list_files reports for a file on disk says what the next sync does with it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from minirag_index import SourceInfo
from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.conversion.pages import PAGES_SINCE_SCHEME
from minirag_ingest.files.file_state import file_state
from minirag_ingest.files.scan import ScannedFile
from minirag_ingest.sync.plan import plan

STORED_MTIME = 1_700_000_000.25


def entry(
    path: str, *, scheme: int = SCHEME_VERSION, ocr: str = "", hash_: str = "h"
) -> SourceInfo:
    return SourceInfo(
        path, content_hash=hash_, size=100, mtime=STORED_MTIME, scheme=scheme, ocr_engine=ocr
    )


def test_a_file_touched_within_a_millisecond_is_stale_as_the_sync_sees_it() -> None:
    # The listing used to allow 1 ms of mtime drift where the sync compares exactly: such a file
    # was listed as indexed while the next sync hashed it.
    info = entry("/r/a.md")
    assert file_state(info, 100, STORED_MTIME, has_ocr=False) == "indexed"
    assert file_state(info, 100, STORED_MTIME + 0.0005, has_ocr=False) == "stale"
    assert file_state(info, 101, STORED_MTIME, has_ocr=False) == "stale"
    assert file_state(None, 100, STORED_MTIME, has_ocr=False) == "not_indexed"


def test_older_schemes_pdfs_without_pages_and_scans_without_ocr() -> None:
    old = SCHEME_VERSION - 1
    assert file_state(entry("/r/a.md", scheme=old), 100, STORED_MTIME, has_ocr=True) == "stale"
    pdf = entry("/r/b.pdf", scheme=PAGES_SINCE_SCHEME - 1)
    assert file_state(pdf, 100, STORED_MTIME, has_ocr=True) == "stale_pages"
    scanned = entry("/r/c.png", scheme=old, ocr="rapidocr")
    assert file_state(scanned, 100, STORED_MTIME, has_ocr=False) == "unreadable"
    assert file_state(scanned, 100, STORED_MTIME, has_ocr=True) == "stale"


@given(
    size=st.sampled_from([100, 101]),
    drift=st.sampled_from([0.0, 0.0005, 2.0]),
    scheme=st.sampled_from([SCHEME_VERSION, SCHEME_VERSION - 1]),
    ocr=st.sampled_from(["", "rapidocr"]),
    has_ocr=st.booleans(),
    same_bytes=st.booleans(),
)
def test_the_listed_state_is_what_the_sync_plan_does(
    size: int, drift: float, scheme: int, ocr: str, has_ocr: bool, same_bytes: bool
) -> None:
    path = "/r/doc.pdf"
    info = entry(path, scheme=scheme, ocr=ocr)
    file = ScannedFile(path, path, size, STORED_MTIME + drift)
    hashed: list[str] = []

    def digest(scanned: ScannedFile) -> str:
        hashed.append(str(scanned.path))
        return "h" if same_bytes else "other"

    decided = plan([file], [], {path: info}, digest=digest, has_ocr=has_ocr)
    state = file_state(info, file.size, file.mtime, has_ocr=has_ocr)
    read = [r.file.path for r in decided.read]
    if state == "indexed":
        assert decided.skipped == 1 and not hashed and not read
    elif state == "unreadable":
        assert decided.kept_unread == [path] and not hashed and not read
    else:  # stale or stale_pages: the sync reads it again, or first looks at its bytes
        assert state in ("stale", "stale_pages")
        assert read == [Path(path)] or hashed == [path]
    if decided.skipped and not hashed:
        assert state == "indexed"  # skipped without a look: the listing said it was current
