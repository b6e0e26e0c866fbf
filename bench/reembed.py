"""Edits cost what changed: embedding calls when a long document is edited and synced again,
and when a second copy of it appears under another name.

    uv run python bench/reembed.py [--model-dir DIR] [--chunks 100] [--positions 8]
                                   [--layout headings|plain|both]

Builds an XQuAD-like document from the English XQuAD paragraphs (../shared/data/xquad/en/docs,
in order): a "# " title, then each article's paragraphs, under a "## " heading naming the
article (``headings``) or with no heading at all (``plain``: one long run of prose), taking
paragraphs until the document cuts into at least ``--chunks`` chunks. It is synced with the
real Pipeline and ``sync`` (the test model unless ``--model-dir``), then, for each kind of edit
and each of ``--positions`` paragraphs spread over the document:

- that one paragraph is edited, the folder synced, and the texts handed to
  ``Embedder.embed_passages`` counted;
- the paragraph is restored and the folder synced again (counted too: the restored chunks were
  replaced by the edited ones, so they are new again).

Edits (testsupport/edits.py): ``word`` (one word changed), ``sentence`` (a sentence added
after the first), ``rewritten`` (replaced by an XQuAD paragraph the document does not hold),
``halved`` (cut to the first half of its sentences), ``doubled`` (grown to about twice its
length with sentences of that other paragraph), ``deleted``, ``inserted`` (that other paragraph
put before it). Last, a byte copy of the document is put in another folder under another name
and the folder synced.

Embedding counts do not depend on the machine's load; the script prints no timings.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

sys.path.insert(0, str(c.REPO))

from testsupport.edits import EDITS, Edit

TITLE = "# Wikipedia articles (XQuAD sample)"


def xquad_paragraphs() -> list[tuple[str, str]]:
    """(article, paragraph) of every English XQuAD document, in order."""
    found = []
    for path in sorted(c.data("xquad", "en", "docs").glob("*.txt")):
        article, _, paragraph = path.read_text(encoding="utf-8").partition("\n\n")
        found.append((article.strip().replace("_", " "), paragraph.strip()))
    return found


def render(paragraphs: list[tuple[str, str]], layout: str) -> str:
    parts, article = [TITLE], None
    for name, paragraph in paragraphs:
        if layout == "headings" and name != article:
            parts.append(f"## {name}")
        article = name
        parts.append(paragraph)
    return "\n\n".join(parts) + "\n"


def edited(items: list[tuple[str, str]], edit: Edit, at: int, spare: str) -> list[tuple[str, str]]:
    """``items`` with the paragraph at ``at`` edited; a paragraph put in takes that article's
    name, so it lands under the same heading."""
    paragraphs = edit([text for _, text in items], at, spare)
    names = [name for name, _ in items]
    if len(paragraphs) < len(names):
        del names[at]
    elif len(paragraphs) > len(names):
        names.insert(at, names[at])
    return list(zip(names, paragraphs, strict=True))


class Counter:
    """Counts the texts the pipeline's model embeds."""

    def __init__(self, pipeline) -> None:
        self.texts = 0
        embedder = pipeline.index.embedder
        original = embedder.embed_passages

        def counting(texts):
            self.texts += len(texts)
            return original(texts)

        embedder.embed_passages = counting

    def take(self) -> int:
        taken, self.texts = self.texts, 0
        return taken


def synced(pipeline, counter: Counter) -> int:
    from minirag_ingest.sync.run import sync

    report = sync(pipeline)
    if report.failed:
        raise SystemExit(f"the sync failed: {report.errors}")
    return counter.take()


def run_layout(layout: str, args, model_dir: Path, work: Path) -> None:
    pool = xquad_paragraphs()
    root, db = work / layout / "root", work / layout / "db"
    root.mkdir(parents=True)
    pipeline = c.open_pipeline([root], db, model_dir)
    counter = Counter(pipeline)
    doc = root / "articles.md"
    taken: list[tuple[str, str]] = []
    for item in pool:  # paragraphs until the document is long enough
        taken.append(item)
        doc.write_text(render(taken, layout), encoding="utf-8")
        if len(pipeline.prepare_file(doc).chunks) >= args.chunks:
            break
    first = synced(pipeline, counter)
    chunks = len(pipeline.index.source_chunks(str(doc)))
    print(
        f"\n## layout {layout}: {len(taken)} paragraphs, {len(doc.read_text())} characters, "
        f"{chunks} chunks; first sync embedded {first} texts",
        flush=True,
    )
    spare = pool[len(taken)][1]
    step = max(1, len(taken) // args.positions)
    positions = list(range(step // 2, len(taken), step))[: args.positions]
    print(f"edited paragraphs: {positions}")
    print("| edit | embedded per edit (median, max) | per position | restoring (max) |")
    print("|---|---|---|---|")
    for kind, edit in EDITS.items():
        counts, restores = [], []
        for at in positions:
            doc.write_text(render(edited(taken, edit, at, spare), layout), encoding="utf-8")
            counts.append(synced(pipeline, counter))
            doc.write_text(render(taken, layout), encoding="utf-8")
            restores.append(synced(pipeline, counter))
        median = statistics.median(counts)
        print(
            f"| {kind} | {median:g}, {max(counts)} | {' '.join(map(str, counts))} "
            f"| {max(restores)} |",
            flush=True,
        )
    (root / "archive").mkdir()
    shutil.copy(doc, root / "archive" / "articles (copy).md")
    copied = synced(pipeline, counter)
    print(f"second copy under another name: embedded {copied} texts", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--chunks", type=int, default=100, help="the document's length")
    parser.add_argument("--positions", type=int, default=8, help="paragraphs edited")
    parser.add_argument("--layout", choices=("headings", "plain", "both"), default="both")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-reembed-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("embedding calls after an edit and for a copy", label)
        layouts = ("headings", "plain") if args.layout == "both" else (args.layout,)
        for layout in layouts:
            run_layout(layout, args, model_dir, work)
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
