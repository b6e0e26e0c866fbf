"""File names as data: ids for names that are not UTF-8, and payloads that always serialise."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minirag_ingest.files.names import json_safe, safe_text, to_id, to_path
from minirag_ingest.sync.run import sync

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX names are bytes")
# Names as os.fsdecode gives them: any text, undecodable bytes as lone surrogates, and plenty
# of the backslashes and hex digits the escape is made of.
NAMES = st.text(
    alphabet=st.one_of(
        st.sampled_from(["\\", "x", "8", "f", "e", "9", "/", "\udce9", "\udcff", "\udc80"]),
        st.characters(blacklist_categories=("Cs",)),
    )
)


@posix_only
@given(NAMES)
def test_the_escape_is_lossless_and_always_valid_text(name: str) -> None:
    source = to_id(name)
    source.encode("utf-8")
    assert to_path(source) == name


@posix_only
def test_ordinary_names_are_their_own_ids() -> None:
    for name in ("/docs/Отчёт 2026.docx", '/docs/it\'s "quoted".md', "/docs/-rf.md", "/a\\b.md"):
        assert to_id(name) == name


@posix_only
def test_an_undecodable_byte_is_written_as_hex() -> None:
    assert to_id(os.fsdecode(b"/docs/caf\xe9.md")) == "/docs/caf\\xe9.md"
    assert to_id("/docs/a\\xe9.md") == "/docs/a\\\\xe9.md", "a literal escape is doubled"


def test_json_safe_payloads_serialise_as_utf8() -> None:
    payload = {"path": "/d/caf\udce9.md", "errors": [{"reason": "bad \ud800 text"}], "n": 3}
    text = json.dumps(json_safe(payload), ensure_ascii=False)
    text.encode("utf-8")
    assert json.loads(text)["n"] == 3
    assert safe_text("plain") == "plain"


@posix_only
def test_a_name_that_is_not_utf8_is_indexed_under_its_id_and_stays_skipped(pipeline, docs) -> None:
    raw = os.path.join(os.fsencode(docs), b"caf\xe9 notes.md")
    try:
        with open(raw, "wb") as handle:
            handle.write(b"# Latin names\n\nA file name in Latin-1 bytes.\n")
    except OSError:  # APFS, for one, allows only UTF-8 names
        pytest.skip("this filesystem allows only names that are valid UTF-8")
    first = sync(pipeline)
    assert first.ingested == 1 and first.failed == 0, first.errors
    [source] = pipeline.index.sources()
    assert source == f"{docs}/caf\\xe9 notes.md"
    assert os.path.exists(to_path(source))
    again = sync(pipeline)
    assert (again.skipped, again.ingested, again.deleted) == (1, 0, 0)
