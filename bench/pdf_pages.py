"""Page numbers on real PDFs: how many chunks carry one, and is every one of them right?

    uv run python bench/pdf_pages.py [--model-dir DIR] [FOLDER ...]

Each PDF under the folders (default: the real-files corpus) is prepared exactly as a sync
prepares it (conversion, chunking, page numbers; nothing embedded or stored) with the tokenizer
of the model in DIR (default: the test model). A PDF without a text layer is reported and left
out. Each chunk that carries ``pages`` is then checked against the PDF itself, independently of
how the pages were found: every word of the chunk must be on the page (or one of the pages of
the span) it names, read from pdfplumber's characters of that page. Quality, not speed: the
figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

sys.path.insert(0, str(c.REPO))
from testsupport.pdf_check import page_letters, words_not_on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--model-dir", type=Path)
    args = parser.parse_args()
    folders = args.folders or [c.data("real-files")]

    from minirag_ingest.conversion.convert import ConversionError

    with tempfile.TemporaryDirectory() as work:
        model_dir, model = c.model_folder(args.model_dir, Path(work))
        c.header("PDF page numbers", model)
        pipeline = c.open_pipeline(folders, Path(work) / "db", model_dir)
        total = paged = wrong = 0
        for path in sorted(p for folder in folders for p in folder.rglob("*.pdf")):
            try:
                prepared = pipeline.prepare_file(path)
            except ConversionError as exc:
                print(f"  skipped {path.name}: {exc.reason[:90]}")
                continue
            letters = page_letters(path)
            have = [ch for ch in prepared.chunks if ch.pages]
            bad = 0
            for chunk in have:
                missing = words_not_on(chunk.text[chunk.context_chars :], chunk.pages, letters)
                if missing:
                    bad += 1
                    print(f"    WRONG {path.name} pages {chunk.pages}: not there: {missing[:5]}")
            total += len(prepared.chunks)
            paged += len(have)
            wrong += bad
            print(
                f"  {path.name:50s} {len(letters)} pages  {len(have):3d}/{len(prepared.chunks):3d}"
                f" chunks with pages  {bad} wrong"
            )
        share = paged / total if total else 0.0
        print(
            f"all PDFs with a text layer: {paged}/{total} chunks with pages ({share:.0%}), "
            f"{wrong} with a wrong page"
        )
        c.footer()


if __name__ == "__main__":
    main()
