from minirag_index.search.scope import in_any_scope, in_scope, scope_filter_sql


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


def test_several_scopes_at_once_select_what_each_selects():
    names = [
        "/docs/proj",
        "/docs/proj/notes.md",
        "/docs/project-secret/x",
        "/docs/proj.md",
        "/other/a.md",
        "/otherwise/b.md",
        "https://example.com/docs/page",
        "https://example.com/docs-private",
        "relative/id",
        "/",
    ]
    for scopes in (
        ["/docs/proj/", "/other"],
        ["https://example.com/docs"],
        ["/"],
        ["/docs/proj", ""],
        [],
    ):
        test = in_any_scope(scopes)
        for name in names:
            assert test(name) == any(in_scope(name, scope) for scope in scopes), (scopes, name)


def test_the_store_filter_selects_what_in_scope_selects(tmp_path):
    """The scope as a LanceDB filter (a range on ``source``) agrees with the Python rule, on
    names that sort next to the scope's folder."""
    import lancedb
    import pyarrow as pa

    names = [
        "/docs/proj",
        "/docs/proj/notes.md",
        "/docs/proj/deep/a b.md",
        "/docs/proj0/x.md",
        "/docs/proj.md",
        "/docs/proj-secret/x",
        "/docs/pro/j.md",
        "/docs/projé/x.md",
        "/docs/proj//twice.md",
        "/other/docs/proj/x.md",
        "https://example.com/docs/page",
        "https://example.com/docs-private",
    ]
    table = lancedb.connect(tmp_path).create_table("t", pa.table({"source": names}))
    for scope in ("/docs/proj", "/docs/proj/", "/docs", "https://example.com/docs", "/docs/pr"):
        where = scope_filter_sql(scope)
        found = table.search().where(where).select(["source"]).limit(None).to_arrow()
        expected = sorted(n for n in names if in_scope(n, scope))
        assert sorted(found.column("source").to_pylist()) == expected, scope
