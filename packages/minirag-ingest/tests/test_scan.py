from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from minirag_ingest.files.roots import PathOutsideRoots, Roots
from minirag_ingest.files.scan import (
    SUPPORTED_EXTENSIONS,
    IgnoreFileUnreadable,
    ScanResult,
    ScopeExcluded,
    is_excluded,
    scan,
)


def make(root: Path, *relative: str, content: str = "text") -> None:
    for item in relative:
        path = root / item
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def listed(result: ScanResult, root: Path) -> list[str]:
    return sorted(scanned.path.relative_to(root).as_posix() for scanned in result.files)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


@pytest.fixture
def scandir_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every folder the scan lists."""
    calls: list[str] = []
    real_scandir = os.scandir

    def recording(path: str) -> Iterator[os.DirEntry[str]]:
        calls.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", recording)
    return calls


def fail_listing(monkeypatch: pytest.MonkeyPatch, folder: Path, error: OSError) -> None:
    real_scandir = os.scandir

    def failing(path: str) -> Iterator[os.DirEntry[str]]:
        if Path(os.fspath(path)) == folder:
            raise error
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", failing)


# --- what counts as a document ----------------------------------------------------------------


def test_all_supported_extensions_any_case(root: Path) -> None:
    assert len(SUPPORTED_EXTENSIONS) == 13
    names = [f"doc{ext}" for ext in sorted(SUPPORTED_EXTENSIONS)]
    make(root, *names, "UPPER.MD", "Mixed.Pdf", "photo.png", "script.py", "README", "archive.zip")
    result = scan(Roots([root]))
    assert listed(result, root) == sorted([*names, "UPPER.MD", "Mixed.Pdf"])
    assert result.ignored == 0
    assert result.unlisted == []


def test_extra_extensions_from_a_plugin(root: Path) -> None:
    make(root, "scan.PNG", "photo.jpg", "notes.md", "clip.gif")
    result = scan(Roots([root]), extra_extensions=(".png", "JPG"))
    assert listed(result, root) == ["notes.md", "photo.jpg", "scan.PNG"]


def test_file_details(root: Path) -> None:
    make(root, "a.md", content="hello")
    os.utime(root / "a.md", (1_700_000_000, 1_700_000_000))
    (scanned,) = scan(Roots([root])).files
    assert scanned.path == root / "a.md"
    assert scanned.real == root / "a.md"
    assert scanned.size == 5
    assert scanned.mtime == 1_700_000_000


def test_skipped_names_with_or_without_ignore_file(root: Path) -> None:
    make(
        root,
        "keep.md",
        ".hidden.md",
        ".git/config.md",
        ".obsidian/notes.md",
        "~$report.docx",
        "sub/~$slides.pptx",
        "sub/keep.docx",
        "node_modules/pkg/readme.md",
        "sub/__pycache__/x.txt",
        "venv/lib/readme.md",
        ".venv/lib/readme.md",
        "tools/myenv/pyvenv.cfg",
        "tools/myenv/lib/site-packages/x/README.md",
        "tools/myenv/notes.md",
        "tools/keep.txt",
    )
    result = scan(Roots([root]))
    assert listed(result, root) == ["keep.md", "sub/keep.docx", "tools/keep.txt"]
    assert result.ignored == 0  # skipped by convention, not by a rule
    (root / ".miniragignore").write_text("nothing-matches-this\n")
    again = scan(Roots([root]))
    assert listed(again, root) == ["keep.md", "sub/keep.docx", "tools/keep.txt"]
    assert again.ignored == 0


# --- .miniragignore -----------------------------------------------------------------------------

SPEC_EXAMPLE = (
    "# drafts and anything personal\ndrafts/\n/personal/\n*.tmp.docx\n!important.tmp.docx\n"
)


def test_spec_example_rules(root: Path) -> None:
    (root / ".miniragignore").write_text(SPEC_EXAMPLE)
    make(
        root,
        "a.md",
        "drafts/d1.md",
        "drafts/d2.md",
        "team/drafts/d3.md",
        "personal/p.md",
        "team/personal/kept.md",
        "x.tmp.docx",
        "team/y.tmp.docx",
        "important.tmp.docx",
        "team/important.tmp.docx",
    )
    result = scan(Roots([root]))
    assert listed(result, root) == [
        "a.md",
        "important.tmp.docx",
        "team/important.tmp.docx",
        "team/personal/kept.md",
    ]
    # drafts/, team/drafts/, personal/ count once each; two .tmp.docx files
    assert result.ignored == 5
    assert [(info.path, info.rules) for info in result.ignore_files] == [
        (root / ".miniragignore", 4)
    ]


def test_excluded_folder_is_never_entered(root: Path, scandir_calls: list[str]) -> None:
    (root / ".miniragignore").write_text("drafts/\n")
    make(root, "a.md", *(f"drafts/sub{i}/n{i}.md" for i in range(5)))
    result = scan(Roots([root]))
    assert listed(result, root) == ["a.md"]
    assert result.ignored == 1
    assert not any(Path(call).name in {"drafts", "sub0"} for call in scandir_calls)
    assert str(root) in scandir_calls


def test_rules_ignore_case(root: Path) -> None:
    (root / ".miniragignore").write_text("private/\nSECRET.md\n")
    make(root, "Private/p.md", "PRIVATE/q.md", "notes/secret.MD", "notes/ok.md")
    result = scan(Roots([root]))
    assert listed(result, root) == ["notes/ok.md"]
    assert result.ignored == 3


def test_rules_ignore_unicode_composition(root: Path) -> None:
    composed = unicodedata.normalize("NFC", "Résumé")
    decomposed = unicodedata.normalize("NFD", "Résumé")
    assert composed != decomposed
    (root / ".miniragignore").write_text(f"{composed}/\n", encoding="utf-8")
    make(root, f"{decomposed}/cv.md", "other/cv.md")
    if not (root / decomposed).exists():  # pragma: no cover - normalising filesystems
        pytest.skip("filesystem normalises names")
    result = scan(Roots([root]))
    assert listed(result, root) == ["other/cv.md"]
    assert result.ignored == 1


def test_decomposed_rule_matches_composed_name(root: Path) -> None:
    (root / ".miniragignore").write_text(unicodedata.normalize("NFD", "café.md\n"))
    make(root, unicodedata.normalize("NFC", "CAFÉ.md"), "tea.md")
    assert listed(scan(Roots([root])), root) == ["tea.md"]


def test_only_the_top_ignore_file_counts(root: Path) -> None:
    make(root, "sub/a.md", "sub/b.md")
    (root / "sub" / ".miniragignore").write_text("a.md\n")
    result = scan(Roots([root]))
    assert listed(result, root) == ["sub/a.md", "sub/b.md"]
    assert result.ignore_files == []


def test_comments_and_blank_lines_are_not_rules(root: Path) -> None:
    (root / ".miniragignore").write_text("# comment\n\n   \n*.csv\n")
    make(root, "a.csv", "b.md")
    result = scan(Roots([root]))
    assert result.ignore_files[0].rules == 1
    assert listed(result, root) == ["b.md"]


def test_nested_roots_follow_every_rule_above(tmp_path: Path) -> None:
    outer = tmp_path / "docs"
    inner = outer / "team"
    make(outer, "a.md", "team/secret.md", "team/local.md", "team/kept.md", "other/local.md")
    (outer / ".miniragignore").write_text("team/secret.md\n")
    (inner / ".miniragignore").write_text("local.md\n")
    result = scan(Roots([outer, inner]))
    # each file listed once, held to both rule files
    assert listed(result, outer) == ["a.md", "other/local.md", "team/kept.md"]
    assert result.ignored == 2
    assert {info.path for info in result.ignore_files} == {
        outer / ".miniragignore",
        inner / ".miniragignore",
    }
    # inner first in the list: same outcome
    assert listed(scan(Roots([inner, outer])), outer) == listed(result, outer)


def test_nested_root_excluded_by_outer_rules(tmp_path: Path) -> None:
    outer = tmp_path / "docs"
    make(outer, "a.md", "archive/old1.md", "archive/old2.md")
    (outer / ".miniragignore").write_text("archive/\n")
    result = scan(Roots([outer, outer / "archive"]))
    assert listed(result, outer) == ["a.md"]
    assert result.ignored == 1


# --- symlinks -----------------------------------------------------------------------------------


def test_symlink_escaping_the_roots_is_skipped_silently(tmp_path: Path, root: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (root / "notes.md").symlink_to(secret)
    (tmp_path / "elsewhere").mkdir()
    make(tmp_path / "elsewhere", "x.md")
    (root / "linked-folder").symlink_to(tmp_path / "elsewhere")
    make(root, "real.md")
    result = scan(Roots([root]))
    assert listed(result, root) == ["real.md"]
    assert result.ignored == 0
    assert result.unlisted == []


def test_symlink_inside_is_listed_under_its_own_path(root: Path) -> None:
    make(root, "docs/target.md", content="abc")
    (root / "alias.md").symlink_to(root / "docs" / "target.md")
    (root / "relative.md").symlink_to(Path("docs") / "target.md")
    result = scan(Roots([root]))
    assert listed(result, root) == ["alias.md", "docs/target.md", "relative.md"]
    alias = next(f for f in result.files if f.path.name == "alias.md")
    assert alias.path == root / "alias.md"
    assert alias.real == root / "docs" / "target.md"
    assert alias.size == 3


def test_symlink_into_another_root(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    make(a, "own.md")
    make(b, "shared.md")
    (a / "shared-link.md").symlink_to(b / "shared.md")
    result = scan(Roots([a, b]))
    assert sorted(str(f.path) for f in result.files) == sorted(
        [str(a / "own.md"), str(a / "shared-link.md"), str(b / "shared.md")]
    )


def test_symlink_to_an_excluded_target_is_left_out(root: Path) -> None:
    (root / ".miniragignore").write_text("drafts/\nhidden-name.md\n")
    make(root, "drafts/wip.md", "notes/hidden-name.md")
    (root / "published.md").symlink_to(root / "drafts" / "wip.md")
    (root / "innocent.md").symlink_to(root / "notes" / "hidden-name.md")
    result = scan(Roots([root]))
    assert listed(result, root) == []
    assert result.ignored == 4  # drafts/, notes/hidden-name.md, and both links


def test_symlink_target_judged_by_the_root_holding_it(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    make(a, "own.md")
    make(b, "private/x.md")
    (b / ".miniragignore").write_text("private/\n")
    (a / "peek.md").symlink_to(b / "private" / "x.md")
    (a / "peek-folder").symlink_to(b / "private")
    result = scan(Roots([a, b]))
    assert [f.path for f in result.files] == [a / "own.md"]


def test_symlinked_folder_inside_is_followed(root: Path) -> None:
    make(root, "real/a.md", "real/deep/b.md")
    (root / "view").symlink_to(root / "real")
    result = scan(Roots([root]))
    assert listed(result, root) == ["real/a.md", "real/deep/b.md", "view/a.md", "view/deep/b.md"]
    view_b = next(f for f in result.files if f.path == root / "view" / "deep" / "b.md")
    assert view_b.real == root / "real" / "deep" / "b.md"


def test_rules_of_the_target_apply_inside_a_followed_folder(root: Path) -> None:
    (root / ".miniragignore").write_text("/real/secret.md\n")
    make(root, "real/a.md", "real/secret.md")
    (root / "view").symlink_to(root / "real")
    assert listed(scan(Roots([root])), root) == ["real/a.md", "view/a.md"]


def test_symlink_loops_do_not_hang(root: Path) -> None:
    make(root, "a/x.md", "b/y.md")
    (root / "a" / "up").symlink_to(root)  # to an ancestor
    (root / "a" / "self").symlink_to(root / "a")
    (root / "a" / "to-b").symlink_to(root / "b")  # a <-> b
    (root / "b" / "to-a").symlink_to(root / "a")
    (root / "loop1.md").symlink_to(root / "loop2.md")  # file links in a circle
    (root / "loop2.md").symlink_to(root / "loop1.md")
    (root / "broken.md").symlink_to(root / "missing.md")
    result = scan(Roots([root]))
    assert listed(result, root) == ["a/to-b/y.md", "a/x.md", "b/to-a/x.md", "b/y.md"]
    assert result.unlisted == []


# --- ignore files that cannot be read -----------------------------------------------------------


def _unreadable_variants(root: Path, variant: str) -> None:
    target = root / ".miniragignore"
    if variant == "folder":
        target.mkdir()
    elif variant == "broken-link":
        target.symlink_to(root / "nowhere")
    elif variant == "bad-encoding":
        target.write_bytes(b"drafts/\n\xff\xfe\xfa secret\n")


@pytest.mark.parametrize("variant", ["folder", "broken-link", "bad-encoding"])
def test_unreadable_ignore_file_stops_that_root_only(tmp_path: Path, variant: str) -> None:
    bad, good = tmp_path / "bad", tmp_path / "good"
    make(bad, "a.md", "drafts/x.md")
    make(good, "b.md")
    _unreadable_variants(bad, variant)
    result = scan(Roots([bad, good]))
    assert [f.path for f in result.files] == [good / "b.md"]
    (unlisted,) = result.unlisted
    assert unlisted.path == bad
    assert unlisted.is_root is True
    assert unlisted.empty is False
    assert ".miniragignore" in unlisted.reason
    assert unlisted.message.startswith(f"could not list root {bad}")
    with pytest.raises(IgnoreFileUnreadable):
        is_excluded(bad / "a.md", Roots([bad, good]))


def test_unreadable_ignore_file_blocks_nested_roots_too(tmp_path: Path) -> None:
    outer = tmp_path / "docs"
    make(outer, "a.md", "inner/b.md")
    _unreadable_variants(outer, "folder")
    result = scan(Roots([outer, outer / "inner"]))
    assert result.files == []
    assert {u.path for u in result.unlisted} == {outer, outer / "inner"}


def test_unreadable_ignore_file_with_a_scope(root: Path) -> None:
    make(root, "sub/a.md")
    _unreadable_variants(root, "broken-link")
    result = scan(Roots([root]), scope=root / "sub")
    assert result.files == []
    assert [u.path for u in result.unlisted] == [root]


# --- folders that cannot be listed --------------------------------------------------------------


def test_unlistable_subfolder_is_reported(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    make(root, "a.md", "locked/b.md", "open/c.md")
    fail_listing(monkeypatch, root / "locked", PermissionError(13, "Permission denied"))
    result = scan(Roots([root]))
    assert listed(result, root) == ["a.md", "open/c.md"]
    (unlisted,) = result.unlisted
    assert unlisted.path == root / "locked"
    assert unlisted.is_root is False
    assert unlisted.reason == "permission denied"
    assert unlisted.message == f"could not list folder {root / 'locked'}: permission denied"


def test_vanished_subfolder_is_reported(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    make(root, "a.md", "gone/b.md")
    fail_listing(monkeypatch, root / "gone", FileNotFoundError(2, "No such file"))
    result = scan(Roots([root]))
    assert [u.path for u in result.unlisted] == [root / "gone"]


def test_unlistable_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, root: Path) -> None:
    make(root, "a.md")
    other = tmp_path / "other"
    make(other, "b.md")
    fail_listing(monkeypatch, root, PermissionError(13, "Operation not permitted"))
    result = scan(Roots([root, other]))
    assert [f.path for f in result.files] == [other / "b.md"]
    (unlisted,) = result.unlisted
    assert (unlisted.path, unlisted.is_root, unlisted.empty) == (root, True, False)
    assert unlisted.message.startswith("could not list root")


def test_missing_root_and_root_that_is_a_file(tmp_path: Path) -> None:
    missing = tmp_path / "unmounted"
    a_file = tmp_path / "file.md"
    a_file.write_text("x")
    result = scan(Roots([missing, a_file]))
    assert result.files == []
    by_path = {u.path: u for u in result.unlisted}
    assert by_path[missing].reason == "no such folder"
    assert by_path[a_file].reason == "not a folder"
    assert all(u.is_root and not u.empty for u in result.unlisted)


def test_empty_root_is_told_apart(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    only_hidden = tmp_path / "hidden-only"
    make(only_hidden, ".DS_Store", ".minirag/lancedb/x.lance")
    no_documents = tmp_path / "no-documents"
    make(no_documents, "picture.png")
    result = scan(Roots([empty, only_hidden, no_documents]))
    assert {u.path for u in result.unlisted} == {empty, only_hidden}
    for unlisted in result.unlisted:
        assert unlisted.empty and unlisted.is_root
        assert unlisted.message == f"root {unlisted.path} is an empty folder"


def test_empty_subfolder_is_not_reported(root: Path) -> None:
    make(root, "a.md")
    (root / "empty").mkdir()
    assert scan(Roots([root])).unlisted == []


# --- scope --------------------------------------------------------------------------------------


@pytest.fixture
def project_tree(root: Path) -> Path:
    make(root, "top.md", "proj/a.md", "proj/sub/b.md", "project-secret/s.md")
    return root


def test_scope_walks_only_its_subtree(project_tree: Path, scandir_calls: list[str]) -> None:
    root = project_tree
    result = scan(Roots([root]), scope=root / "proj")
    assert listed(result, root) == ["proj/a.md", "proj/sub/b.md"]
    assert all(Path(call).is_relative_to(root / "proj") for call in scandir_calls)


def test_scope_is_component_based(project_tree: Path) -> None:
    root = project_tree
    result = scan(Roots([root]), scope=root / "proj")
    assert not any("project-secret" in str(f.path) for f in result.files)


def test_scope_of_a_single_file(project_tree: Path) -> None:
    root = project_tree
    assert listed(scan(Roots([root]), scope=root / "proj" / "a.md"), root) == ["proj/a.md"]
    make(root, "proj/img.png")
    assert scan(Roots([root]), scope=root / "proj" / "img.png").files == []


def test_scope_outside_the_roots(tmp_path: Path, project_tree: Path) -> None:
    with pytest.raises(PathOutsideRoots):
        scan(Roots([project_tree / "proj"]), scope=project_tree / "project-secret")
    with pytest.raises(PathOutsideRoots):
        scan(Roots([project_tree]), scope=tmp_path)


def test_scope_inside_an_excluded_folder_is_refused(project_tree: Path) -> None:
    root = project_tree
    (root / ".miniragignore").write_text("proj/sub/\n")
    for scope in (root / "proj" / "sub", root / "proj" / "sub" / "b.md"):
        with pytest.raises(ScopeExcluded) as caught:
            scan(Roots([root]), scope=scope)
        assert caught.value.rule_file == root / ".miniragignore"
        assert str(root / ".miniragignore") in str(caught.value)
        assert "proj/sub/" in str(caught.value)


def test_scope_inside_a_hidden_folder_is_refused(root: Path) -> None:
    make(root, ".obsidian/a.md", "node_modules/x/readme.md")
    for scope in (root / ".obsidian", root / "node_modules" / "x"):
        with pytest.raises(ScopeExcluded):
            scan(Roots([root]), scope=scope)


def test_scope_that_no_longer_exists(project_tree: Path) -> None:
    result = scan(Roots([project_tree]), scope=project_tree / "proj" / "deleted")
    assert result.files == [] and result.unlisted == []


def test_scope_under_a_missing_root(tmp_path: Path) -> None:
    root = tmp_path / "unmounted"
    result = scan(Roots([root]), scope=root / "sub")
    assert [(u.path, u.is_root) for u in result.unlisted] == [(root, True)]


def test_scope_includes_nested_roots_once(tmp_path: Path) -> None:
    outer = tmp_path / "docs"
    make(outer, "a/x.md", "a/inner/y.md", "b/z.md")
    result = scan(Roots([outer, outer / "a" / "inner"]), scope=outer / "a")
    assert listed(result, outer) == ["a/inner/y.md", "a/x.md"]


def test_scope_on_a_root_reports_it_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (unlisted,) = scan(Roots([empty]), scope=empty).unlisted
    assert unlisted.empty


# --- is_excluded --------------------------------------------------------------------------------


def test_is_excluded_names_the_rule_file(root: Path) -> None:
    (root / ".miniragignore").write_text(SPEC_EXAMPLE + "!drafts/keep.md\n")
    make(root, "a.md", "drafts/keep.md", "x.tmp.docx", "important.tmp.docx")
    roots = Roots([root])
    rule_file = str(root / ".miniragignore")
    assert is_excluded(root / "a.md", roots) is None
    assert is_excluded(root / "important.tmp.docx", roots) is None
    assert is_excluded(root / "x.tmp.docx", roots) == rule_file
    assert is_excluded(root / "drafts", roots) == rule_file
    # a file inside an excluded folder cannot be re-included, as in git
    assert is_excluded(root / "drafts" / "keep.md", roots) == rule_file
    assert is_excluded(root / "Drafts" / "new.md", roots) == rule_file  # need not exist


def test_is_excluded_follows_symlinks_and_nested_roots(tmp_path: Path) -> None:
    outer = tmp_path / "docs"
    make(outer, "drafts/x.md", "inner/a.md")
    (outer / ".miniragignore").write_text("drafts/\ninner/a.md\n")
    (outer / "link.md").symlink_to(outer / "drafts" / "x.md")
    roots = Roots([outer, outer / "inner"])
    assert is_excluded(outer / "link.md", roots) == str(outer / ".miniragignore")
    assert is_excluded(outer / "inner" / "a.md", roots) == str(outer / ".miniragignore")


def test_is_excluded_outside_the_roots(tmp_path: Path, root: Path) -> None:
    with pytest.raises(PathOutsideRoots):
        is_excluded(tmp_path / "elsewhere.md", Roots([root]))


# --- speed --------------------------------------------------------------------------------------


def test_ten_thousand_files_are_all_listed(root: Path) -> None:
    (root / ".miniragignore").write_text("drafts/\n*.tmp.docx\n!important.tmp.docx\n/personal/\n")
    for folder in range(100):
        sub = root / f"folder{folder:03d}" / "nested"
        sub.mkdir(parents=True)
        for index in range(100):
            (sub / f"doc{index:03d}.md").write_bytes(b"")
    result = scan(Roots([root]))
    assert len(result.files) == 10_000
