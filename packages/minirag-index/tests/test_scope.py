from minirag_index.scope import in_scope


def test_scope_stops_at_a_separator():
    assert in_scope("/docs/proj/notes.md", "/docs/proj")
    assert in_scope("/docs/proj/notes.md", "/docs/proj/")
    assert in_scope("/docs/proj", "/docs/proj")
    assert not in_scope("/docs/project-secret/x", "/docs/proj")
    assert not in_scope("/docs/proj.md", "/docs/proj")


def test_scope_for_url_ids():
    assert in_scope("https://example.com/docs/page", "https://example.com/docs")
    assert not in_scope("https://example.com/docs-private", "https://example.com/docs")


def test_no_scope_matches_everything():
    assert in_scope("anything", None)
