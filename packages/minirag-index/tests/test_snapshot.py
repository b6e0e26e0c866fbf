"""Searching from the in-memory snapshot gives what searching LanceDB directly gives."""

from __future__ import annotations

import pytest

from minirag_index import ChunkInput, SourceDoc

TOPICS = {
    "/docs/billing/invoices.md": [
        "Invoices are issued on the first working day of each month.",
        "A late invoice carries a fee of two percent per week.",
        "Invoice numbers follow the pattern INV-2024-0042.",
    ],
    "/docs/billing/refunds.md": [
        "Refunds are paid back to the card that was charged.",
        "A refund takes five to seven working days to arrive.",
    ],
    "/docs/ops/backups.md": [
        "Backups run every night at two in the morning.",
        "A backup is kept for thirty days before it is deleted.",
        "Restoring a backup needs the on-call engineer's approval.",
    ],
    "/docs/ops/alerts.md": [
        "Alerts page the on-call engineer when the error rate rises.",
        "Silence an alert only with a ticket that explains why.",
    ],
    "https://example.com/status": [
        "The status page lists incidents and planned maintenance.",
    ],
}
QUESTIONS = [
    "when are invoices issued",
    "how long does a refund take",
    "INV-2024-0042",
    "who approves restoring a backup",
    "on-call engineer",
    "planned maintenance incidents",
]


def fill(index) -> None:
    for source, texts in TOPICS.items():
        chunks = [
            ChunkInput(text, section=i // 2, joiner="" if i % 2 == 0 else "\n\n")
            for i, text in enumerate(texts)
        ]
        index.add_source(SourceDoc(source, title=source.rsplit("/", 1)[-1]), chunks)
    index.refresh()


def picture(result) -> list[tuple]:
    """What a user sees of a search: hits in order with scores, and the sections returned."""
    return [
        (h.source, h.chunk_index, round(h.score, 9), h.text, h.parent_id) for h in result.hits
    ], result.parents


@pytest.mark.parametrize("weight", [0.0, 0.6, 1.0])
@pytest.mark.parametrize(
    ("scope", "sources"),
    [
        (None, None),
        ("/docs/billing", None),
        ("/docs/ops/", {"/docs/ops/alerts.md"}),
        (None, {"/docs/billing/refunds.md", "https://example.com/status"}),
        ("https://example.com", None),
    ],
)
def test_snapshot_and_lancedb_agree(make_index, weight, scope, sources):
    in_memory = make_index(RAG_HYBRID_WEIGHT=weight)
    fill(in_memory)
    direct = make_index(RAG_HYBRID_WEIGHT=weight)
    direct.snapshot_budget = 0  # too small for any vector: every search goes to LanceDB
    assert in_memory.snapshot() is not None
    assert direct.snapshot() is None
    answered = 0
    for question in QUESTIONS:
        a = in_memory.search(question, top_k=5, scope=scope, sources=sources)
        b = direct.search(question, top_k=5, scope=scope, sources=sources)
        assert picture(a) == picture(b), question
        answered += bool(a.hits)
        for x, y in zip(a.hits, b.hits, strict=True):
            if y.distance is None:
                assert x.distance is None
            else:
                assert x.distance == pytest.approx(y.distance, abs=1e-4)
        allowed = {s for s in TOPICS if sources is None or s in sources}
        assert {h.source for h in a.hits} <= allowed
    assert answered  # keyword-only under a narrow scope answers only some questions


def test_empty_scope_and_filter_notices_match(make_index):
    in_memory = make_index()
    fill(in_memory)
    direct = make_index()
    direct.snapshot_budget = 0
    for kwargs in ({"scope": "/docs/none"}, {"sources": set()}, {"scope": "/docs/bill"}):
        a, b = in_memory.search("backup", **kwargs), direct.search("backup", **kwargs)
        assert a.hits == b.hits == []
        assert a.notice == b.notice and a.notice


def test_the_snapshot_follows_every_write(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=0.0)  # vectors only: no keyword index refresh needed
    fill(index)
    assert index.search("the cafeteria menu", top_k=1).hits[0].source != "/docs/menu.md"
    index.add_source(
        SourceDoc("/docs/menu.md", title="menu"),
        [ChunkInput("The cafeteria menu changes every Monday: soup, salad and pasta.")],
    )
    top = index.search("the cafeteria menu", top_k=1)
    assert top.hits[0].source == "/docs/menu.md"
    assert top.parents[top.hits[0].parent_id].startswith("The cafeteria menu")
    index.delete_source("/docs/menu.md")
    assert all(h.source != "/docs/menu.md" for h in index.search("cafeteria menu").hits)
    for source in TOPICS:
        index.delete_source(source)
    empty = index.search("anything")
    assert empty.hits == [] and "empty" in empty.notice
