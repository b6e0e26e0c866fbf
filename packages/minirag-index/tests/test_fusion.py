from minirag_index.search.fusion import RRF_K, first_sources, group_cut, rrf_fuse, within_distance


def test_rrf_k_is_the_standard_60():
    assert RRF_K == 60


def test_weighted_rrf_formula():
    fused = {f.key: f.score for f in rrf_fuse(["a", "b", "c"], ["c", "d"], weight=0.6)}
    assert fused["a"] == 0.4 / 61
    assert fused["b"] == 0.4 / 62
    assert fused["c"] == 0.4 / 63 + 0.6 / 61
    assert fused["d"] == 0.6 / 62
    order = [f.key for f in rrf_fuse(["a", "b", "c"], ["c", "d"], weight=0.6)]
    assert order == ["c", "d", "a", "b"]


def test_weight_zero_is_vector_order_and_one_is_keyword_order():
    assert [f.key for f in rrf_fuse(["a", "b"], ["b", "a"], 0.0)] == ["a", "b"]
    assert [f.key for f in rrf_fuse(["a", "b"], ["b", "a"], 1.0)] == ["b", "a"]


def test_grouping_cuts_at_a_large_gap_and_keeps_order_and_distanceless_hits():
    distances = [0.12, None, 0.10, 0.11, 0.55, 0.56, 0.95]
    # sorted: .10 .11 .12 .55 .56 .95; gaps .01 .01 .43 .01 .39 -> mean .17, boundaries > .34
    assert group_cut(distances, "similar") == [True, True, True, True, False, False, False]
    assert group_cut(distances, "related") == [True, True, True, True, True, True, False]


def test_grouping_needs_three_distances():
    assert group_cut([0.1, 0.9, None], "similar") == [True, True, True]


def test_grouping_without_a_boundary_keeps_everything():
    assert group_cut([0.1, 0.2, 0.3, 0.4], "similar") == [True] * 4


def test_max_distance_drops_far_hits_and_hits_without_distance():
    assert within_distance([0.2, 0.9, None], 0.5) == [True, False, False]


def test_max_files_keeps_first_distinct_sources():
    assert first_sources(["a", "b", "a", "c", "b"], 2) == [True, True, True, False, True]


def test_hits_get_their_text_from_their_sections_and_a_vanished_chunk_drops_its_hit():
    from minirag_index.results import Hit
    from minirag_index.search.hybrid import with_text
    from minirag_index.storage.schema import StoredChunk

    def hit(source: str, index: int, parent: str) -> Hit:
        return Hit("", source, "", index, 0.5, 0.1, parent)

    def chunk(source: str, index: int, parent: str, text: str) -> StoredChunk:
        return StoredChunk(source, f"Title of {source}", index, 0, parent, text, 0, "\n\n", "3")

    sections = {
        "a#0": [chunk("/d/a.md", 0, "a#0", "alpha one"), chunk("/d/a.md", 1, "a#0", "alpha two")],
        "b#0": [chunk("/d/b.md", 0, "b#0", "beta")],
    }
    hits = [hit("/d/a.md", 1, "a#0"), hit("/d/c.md", 4, "c#0"), hit("/d/b.md", 0, "b#0")]
    filled = with_text(hits, sections)
    assert [(h.source, h.text, h.title, h.pages) for h in filled] == [
        ("/d/a.md", "alpha two", "Title of /d/a.md", "3"),
        ("/d/b.md", "beta", "Title of /d/b.md", "3"),
    ]
    assert [h.score for h in filled] == [0.5, 0.5]
