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


def test_a_table_cut_into_two_sections_is_framed_in_each_and_whole_in_the_document(make_index):
    from minirag_index.search.reconstruct import make_seam
    from minirag_index.storage.schema import parent_id_for

    header = "| a | b |\n|---|---|"
    index = make_index()
    index.add_source(
        SourceDoc("/d/long.md"),
        [
            ChunkInput("## T\n\n" + header + "\n| 1 | 2 |", section=0),
            # The second section starts at a row: one newline before it in the document, and
            # the header it must open with to be read on its own.
            ChunkInput(
                header + "\n| 3 | 4 |",
                context_chars=len(header) + 1,
                joiner=make_seam("\n", opening=header + "\n"),
                section=1,
            ),
            ChunkInput("## Next", joiner=make_seam("\n\n"), section=2),
        ],
    )
    assert index.read_document("/d/long.md") == (
        "## T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Next"
    )
    sections = index.sections([parent_id_for("/d/long.md", n) for n in range(3)])
    assert list(sections.values()) == [
        "## T\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        "| a | b |\n|---|---|\n| 3 | 4 |",
        "## Next",
    ]


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
