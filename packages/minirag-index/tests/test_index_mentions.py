"""find_mentions and look-alikes through a real index: caching, scope, pages."""

from __future__ import annotations

from minirag_index import ChunkInput, SourceDoc
from minirag_index.search.lookalike import signature_bytes

CONTRACT = (
    "The supplier delivers the goods within ten working days after the order is confirmed "
    "in writing. Payment is due thirty days after delivery. Disputes go to the court of the "
    "buyer's city. The contract ends on the last day of the year unless renewed in writing."
)


def test_find_mentions_sees_new_rows_and_respects_scope(make_index):
    index = make_index()
    index.add_source(SourceDoc("/d/a.md", title="Акт сверки"), [ChunkInput("Подписан акт.")])
    index.add_source(SourceDoc("/e/b.md"), [ChunkInput("контакт отдела")])
    result = index.find_mentions(["акт"])
    assert result.matched_documents == 1 and result.searched_documents == 2
    index.add_source(SourceDoc("/e/c.md"), [ChunkInput("три акта за май")])
    assert index.find_mentions(["акт"]).matched_documents == 2  # the cache follows writes
    scoped = index.find_mentions(["акт"], scope="/e")
    assert [d.source for d in scoped.documents] == ["/e/c.md"]
    assert scoped.searched_documents == 2


def test_first_match_carries_pdf_pages(make_index):
    index = make_index()
    index.add_source(
        SourceDoc("/d/scan.pdf"),
        [ChunkInput("cover page", pages="1"), ChunkInput("invoice 42 total", pages="2-3")],
    )
    doc = index.find_mentions(["invoice"]).documents[0]
    assert doc.first_match.pages == "2-3"


def test_look_alikes_from_stored_signatures(make_index):
    index = make_index()
    edited = CONTRACT.replace("ten", "fifteen").replace("thirty", "sixty")
    for source, text in (("/d/v1.md", CONTRACT), ("/d/v2.md", edited), ("/d/x.md", "other")):
        doc = SourceDoc(source, signature=signature_bytes(text))
        index.add_source(doc, [ChunkInput(text)])
    assert [a.source for a in index.look_alikes("/d/v1.md")] == ["/d/v2.md"]
    assert index.look_alikes("/d/x.md") == []
    overlap = index.look_alikes("/d/v2.md")[0].overlap
    assert 0.5 <= overlap < 1.0
