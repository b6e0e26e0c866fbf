"""Chunking statistics over real files: is every chunk inside the model's 128-token window?

    uv run python bench/chunk_stats.py --model-dir DIR FOLDER [FOLDER...] [--budget 110]

Converts every supported file under the folders, chunks it with the tokenizer in DIR
(tokenizer.json, truncation and padding off) and prints chunk and section figures plus each
conversion failure with its reason. Files with other extensions are counted and skipped.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from minirag_ingest.chunking import (
    DEFAULT_BUDGET,
    SECTION_CHAR_CAP,
    chunk_markdown,
    rebuild_section,
)

MODEL_CEILING = 128  # the trained sequence length of the models we ship for

try:  # the real converter; the fallback only reads text formats
    from minirag_ingest.conversion.convert import (
        SUPPORTED_EXTENSIONS,
        ConversionError,
        convert_file,
    )
except ImportError:  # pragma: no cover - only while convert.py does not exist yet
    SUPPORTED_EXTENSIONS = frozenset({".md", ".markdown", ".txt"})

    class ConversionError(Exception):  # type: ignore[no-redef]
        pass

    class _Text:
        def __init__(self, markdown: str) -> None:
            self.markdown = markdown
            self.metadata_title = None

    def convert_file(path: Path, *, max_file_size: int) -> _Text:  # type: ignore[misc]
        if path.stat().st_size > max_file_size:
            raise ConversionError(f"{path.name}: file too large")
        try:
            return _Text(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise ConversionError(f"{path.name}: not UTF-8 ({exc.reason})") from exc


try:
    from minirag_ingest.document.titles import choose_title
except ImportError:  # pragma: no cover
    choose_title = None


def load_counter(model_dir: Path) -> Callable[[str], int]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text).ids)


def percentile(values: list[int], share: float) -> int:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def title_for(path: Path, converted: object) -> str:
    markdown = converted.markdown  # type: ignore[attr-defined]
    if choose_title is None:
        return path.stem
    metadata = getattr(converted, "metadata_title", None)
    return choose_title(metadata_title=metadata, markdown=markdown, file_name=path.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--model-dir", required=True, type=Path)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--max-file-size", type=int, default=100 * 1024 * 1024)
    args = parser.parse_args(argv)

    count = load_counter(args.model_dir)
    files = sorted(p for folder in args.folders for p in folder.rglob("*") if p.is_file())
    supported = [p for p in files if p.suffix.lower() in SUPPORTED_EXTENSIONS]
    failures: list[tuple[Path, str]] = []
    chunk_tokens: list[int] = []
    section_chars: list[int] = []
    categories: Counter[str] = Counter()
    empty = 0
    lost: list[Path] = []  # text in, nothing out: must stay empty
    convert_seconds = chunk_seconds = 0.0
    for path in supported:
        started = time.perf_counter()
        try:
            converted = convert_file(path, max_file_size=args.max_file_size)
        except ConversionError as exc:
            failures.append((path, str(exc)))
            continue
        except Exception as exc:  # a converter bug is a finding too, not a crash of the bench
            failures.append((path, f"{type(exc).__name__}: {exc}".splitlines()[0]))
            continue
        convert_seconds += time.perf_counter() - started
        started = time.perf_counter()
        doc = chunk_markdown(
            converted.markdown,
            count_tokens=count,
            budget=args.budget,
            title=title_for(path, converted),
        )
        chunk_seconds += time.perf_counter() - started
        categories[doc.category] += 1
        if not converted.markdown.strip():
            empty += 1
        elif not doc.chunks:
            lost.append(path)
        sections: dict[int, list] = {}
        for chunk in doc.chunks:
            sections.setdefault(chunk.section, []).append(chunk)
            chunk_tokens.append(count(chunk.text))
        section_chars.extend(len(rebuild_section(chunks)) for chunks in sections.values())

    converted_files = len(supported) - len(failures)
    over_ceiling = sum(t > MODEL_CEILING for t in chunk_tokens)
    over_budget = sum(t > args.budget for t in chunk_tokens)
    over_cap = sum(c > SECTION_CHAR_CAP for c in section_chars)
    print(f"folders: {', '.join(str(f) for f in args.folders)}")
    print(f"model: {args.model_dir}   budget: {args.budget} tokens")
    print(
        f"files: {len(files)} found, {len(supported)} supported, {converted_files} converted, "
        f"{len(failures)} failed, {len(files) - len(supported)} skipped (unsupported type)"
    )
    print("categories: " + ", ".join(f"{k} {v}" for k, v in sorted(categories.items())))
    print(f"documents with no text after conversion: {empty}")
    print(f"documents with text but no chunk: {len(lost)}")
    for path in lost:
        print(f"  {path}")
    print(f"chunks: {len(chunk_tokens)}")
    if chunk_tokens:
        share = 100 * over_ceiling / len(chunk_tokens)
        print(f"chunks over {MODEL_CEILING} tokens: {over_ceiling} ({share:.2f}%)")
        print(f"chunks over the budget (whole code blocks): {over_budget}")
        print(
            f"tokens per chunk: median {statistics.median(chunk_tokens):g}, max {max(chunk_tokens)}"
        )
    print(f"sections: {len(section_chars)}")
    if section_chars:
        share = 100 * over_cap / len(section_chars)
        print(
            f"section characters: median {statistics.median(section_chars):g}, "
            f"p99 {percentile(section_chars, 0.99)}, max {max(section_chars)}"
        )
        print(f"sections over {SECTION_CHAR_CAP} characters: {over_cap} ({share:.2f}%)")
    print(f"time: converting {convert_seconds:.1f} s, chunking {chunk_seconds:.1f} s")
    if failures:
        print(f"conversion failures ({len(failures)}):")
        for path, reason in failures:
            print(f"  {path}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
