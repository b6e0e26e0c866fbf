from minirag_index import ChunkInput, SourceDoc


def test_read_document_shows_each_table_once_with_one_header(make_index):
    header = "| a | b |\n|---|---|\n"
    index = make_index()
    index.add_source(
        SourceDoc("/d/t.md"),
        [
            ChunkInput("## Table\n\n" + header + "| 1 | 2 |", section=0),
            ChunkInput(
                "Table\n" + header + "| 3 | 4 |", context_chars=6 + len(header), joiner="\n"
            ),
            ChunkInput("## Next\n\ntext", section=1),
        ],
    )
    text = index.read_document("/d/t.md")
    assert text == "## Table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Next\n\ntext"
    assert index.read_document("/d/missing.md") is None


def test_neighbors(make_index):
    index = make_index()
    index.add_source(SourceDoc("/d/n.md"), [ChunkInput(f"part {i}") for i in range(6)])
    around = index.neighbors("/d/n.md", 3, before=2, after=1)
    assert [c.chunk_index for c in around] == [1, 2, 3, 4]
    assert [c.is_target for c in around] == [False, False, True, False]
    assert index.neighbors("/d/unknown.md", 0) is None


def test_sources_listing(make_index):
    index = make_index()
    index.add_source(SourceDoc("/d/a.md", title="A", content_hash="abc", size=3), [ChunkInput("x")])
    index.add_source(SourceDoc("/e/b.md"), [ChunkInput("y"), ChunkInput("z")])
    infos = index.sources()
    assert infos["/d/a.md"].content_hash == "abc"
    assert infos["/e/b.md"].chunk_count == 2
    assert set(index.sources(scope="/d")) == {"/d/a.md"}
