from __future__ import annotations

import os
from pathlib import Path

import pytest

from minirag_ingest.files.roots import PathOutsideRoots, Roots, in_scope


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "notes.md").write_text("x")
    (root / "project-secret").mkdir()
    (root / "project-secret" / "notes.md").write_text("x")
    return root


def test_contain_returns_the_real_path(docs: Path) -> None:
    roots = Roots([docs])
    assert roots.contain(docs / "proj" / ".." / "proj" / "notes.md") == docs / "proj" / "notes.md"
    assert roots.contain(docs) == docs


def test_contain_rejects_outside_paths_and_lists_roots(tmp_path: Path, docs: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    roots = Roots([docs, other / "b"])
    with pytest.raises(PathOutsideRoots) as caught:
        roots.contain(tmp_path / "secret.md")
    message = str(caught.value)
    assert message.startswith("Path outside configured document roots")
    assert str(docs) in message and str(other / "b") in message


def test_contain_rejects_dotdot_escape(docs: Path) -> None:
    with pytest.raises(PathOutsideRoots):
        Roots([docs / "proj"]).contain(docs / "proj" / ".." / "project-secret" / "notes.md")


def test_contain_is_component_based(docs: Path) -> None:
    roots = Roots([docs / "proj"])
    assert roots.contain(docs / "proj" / "notes.md")
    with pytest.raises(PathOutsideRoots):
        roots.contain(docs / "project-secret" / "notes.md")


def test_contain_follows_symlinks(tmp_path: Path, docs: Path) -> None:
    outside = tmp_path / "id_rsa"
    outside.write_text("key")
    (docs / "notes.md").symlink_to(outside)
    (docs / "alias.md").symlink_to(docs / "proj" / "notes.md")
    roots = Roots([docs])
    with pytest.raises(PathOutsideRoots):
        roots.contain(docs / "notes.md")
    assert roots.contain(docs / "alias.md") == docs / "proj" / "notes.md"
    # A link outside the roots that points in is fine: what counts is the real file.
    (tmp_path / "inbound.md").symlink_to(docs / "proj" / "notes.md")
    assert roots.contain(tmp_path / "inbound.md") == docs / "proj" / "notes.md"


def test_contain_accepts_a_root_under_another_spelling(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, docs: Path
) -> None:
    """A bind mount or a case-insensitive volume: the same folder under another path."""
    alias = tmp_path / "alias"
    alias.mkdir()
    real_samefile = os.path.samefile

    def samefile(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
        if Path(a) == alias and Path(b) == docs:
            return True
        return real_samefile(a, b)

    monkeypatch.setattr(os.path, "samefile", samefile)
    roots = Roots([docs])
    assert roots.contain(alias / "proj" / "notes.md") == docs / "proj" / "notes.md"
    with pytest.raises(PathOutsideRoots):
        roots.contain(tmp_path / "elsewhere.md")


def test_nested_roots_root_of_and_display_path(docs: Path) -> None:
    roots = Roots([docs, docs / "proj"])
    assert roots.root_of(docs / "proj" / "notes.md") == docs / "proj"
    assert roots.root_of(docs / "project-secret" / "notes.md") == docs
    assert roots.root_of("/elsewhere/x.md") is None
    assert roots.roots_above(docs / "proj" / "notes.md") == [docs, docs / "proj"]
    assert roots.display_path(str(docs / "proj" / "notes.md")) == "notes.md"
    assert roots.display_path(str(docs / "project-secret" / "notes.md")) == (
        "project-secret/notes.md"
    )


def test_display_path_of_a_root_itself_and_under_the_filesystem_root(docs: Path) -> None:
    roots = Roots([docs, docs / "proj"])
    assert roots.display_path(str(docs / "proj")) == "proj"  # a root names itself
    assert roots.display_path(str(docs / "proj" / "a" / "b.md")) == "a/b.md"
    everything = Roots(["/"])
    assert everything.display_path("/etc/notes.md") == "etc/notes.md"
    assert everything.display_path("/") == "/"


def test_display_path_leaves_ids_alone(docs: Path) -> None:
    roots = Roots([docs])
    assert roots.display_path("https://example.com/docs/page") == "https://example.com/docs/page"
    assert roots.display_path("my-note-id") == "my-note-id"
    assert roots.display_path("/elsewhere/file.md") == "/elsewhere/file.md"


def test_roots_deduplicate_and_keep_order(docs: Path) -> None:
    roots = Roots([docs / "proj", docs, docs / "proj"])
    assert list(roots) == [docs / "proj", docs]
    assert roots.first == docs / "proj"
    assert len(roots) == 2
    with pytest.raises(ValueError):
        Roots([])


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        ("/docs/proj/notes.md", "/docs/proj", True),
        ("/docs/proj/notes.md", "/docs/proj/", True),
        ("/docs/proj", "/docs/proj", True),
        ("/docs/project-secret/notes.md", "/docs/proj", False),
        ("/docs/proj.md", "/docs/proj", False),
        ("/docs/proj/a/b.md", "/", True),
        ("https://example.com/docs/page", "https://example.com/docs", True),
        ("https://example.com/docs-private", "https://example.com/docs", False),
        ("notes-2024", "notes", False),
    ],
)
def test_in_scope(source: str, scope: str, expected: bool) -> None:
    assert in_scope(source, scope) is expected
