"""The CLI's human output: each command's result model as lines on stdout, and ``warn:`` lines
on stderr for what the user should notice (a failed file, a filter that left documents out).

``--json`` does not come here: it prints the model itself (:meth:`Result.dump`).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from minirag_mcp.results import (
    ClassifyTry,
    Deleted,
    DocumentText,
    FilterCounts,
    FolderIngest,
    Ingested,
    LabelOut,
    LabelsStatus,
    ListResult,
    MentionsResult,
    NeighborsResult,
    QueryResult,
    StatusResult,
    SyncJob,
)


def warn(message: str) -> None:
    print(f"warn: {message}", file=sys.stderr)


def counted(count: int, noun: str) -> str:
    """``1 chunk``, ``2 chunks``: a count with its noun in the right number."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def count_line(command: str, state: str, counts: dict[str, int]) -> str:
    """``sync succeeded: scanned 3, ingested 2, ...``: the counts line of sync and ingest."""
    return f"{command} {state}: " + ", ".join(f"{k} {v}" for k, v in counts.items())


def interrupted_line(done: int, total: int | None = None) -> str:
    files = f"{done} of {total}" if total else str(done)
    return f"interrupted: {files} files done, the next sync resumes"


def page_suffix(pages: str | None) -> str:
    return f" (p. {pages})" if pages else ""


def label_suffix(labels: dict[str, LabelOut] | None, date: str | None, how: str | None) -> str:
    """A row's date (with its source) and labels, when the corpus has document labels."""
    if labels is None:
        return ""
    parts = [f"{date} ({how})" if date else "undated"]
    for facet, label in labels.items():
        source = label.source
        if source == "model":
            source += f" {label.confidence:.2f}"
            if label.uncertain:
                source += f" uncertain, runner-up {label.runner_up}"
        parts.append(f"{facet}={label.value} ({source})")
    return "  " + " ".join(parts)


def warn_filter(counts: FilterCounts | None, notice: str | None) -> None:
    """Non-zero filterCounts and the filterNotice, as warn: lines."""
    if counts is not None and counts.unlabelled:
        left = "was" if counts.unlabelled == 1 else "were"
        warn(
            f"{counted(counts.unlabelled, 'document')} in scope {left} left out for lacking a label"
        )
    if counts is not None and counts.undated:
        left = "was" if counts.undated == 1 else "were"
        warn(f"{counted(counts.undated, 'document')} in scope {left} left out for lacking a date")
    if notice:
        warn(notice)


def show_query(result: QueryResult) -> None:
    if result.warning:
        warn(result.warning)
    warn_filter(result.filter_counts, result.filter_notice)
    hits = result.hits
    if not hits:
        print("no results")
        if result.notice:
            print(result.notice)
        return
    display = {s.source: s.display_path for s in result.sources}
    for number, hit in enumerate(hits, 1):
        where = display.get(hit.source, hit.source)
        distance = "-" if hit.distance is None else f"{hit.distance:.3f}"
        print(
            f"[{number}] {where}{page_suffix(hit.pages)} chunk {hit.chunk_index} "
            f"score {hit.score:.4f} distance {distance}"
        )
        print("    " + hit.text.replace("\n", "\n    "))
        print()
    print("Sources:")
    for source in result.sources:
        pages = sorted({h.pages for h in hits if h.source == source.source and h.pages})
        suffix = f" (p. {', '.join(pages)})" if pages else ""
        labels = label_suffix(source.labels, source.date, source.date_source)
        print(f"  {source.display_path}{suffix}{labels}")
        for look in source.look_alikes or []:
            print(f"    looks like {look.display_path} (overlap {look.overlap:.2f})")


def show_mentions(result: MentionsResult) -> None:
    print(
        f"{result.matched_documents} of {result.searched_documents} documents match "
        f"({counted(result.matched_chunks, 'chunk')})"
    )
    if result.forms:
        print("forms: " + ", ".join(f"{f.form} ({f.documents})" for f in result.forms))
    if not result.documents:
        print("no results")
        if result.notice:
            print(result.notice)
        return
    for document in result.documents:
        first = document.first_match
        pages = page_suffix(first.pages if first is not None else None)
        title = " [title]" if document.title_match else ""
        print(
            f"{document.display_path}{pages}: {counted(document.matching_chunks, 'chunk')}{title}"
        )
        if first is not None and first.snippet:
            print(f"    {first.snippet}")
    if result.next_offset is not None:
        print(f"more: --offset {result.next_offset}")


def show_ingest(result: Ingested) -> None:
    print(f"ingested {result.source}: {counted(result.chunks, 'chunk')} ({result.title!r})")
    if result.label_problem:
        warn(result.label_problem)


def show_folder_ingest(result: FolderIngest) -> None:
    for row in result.files:
        show_ingest(row)
    print(count_line("ingest", result.state, result.counts.model_dump()))
    for error in result.errors:
        warn(f"{error.path}: {error.reason}")


def show_sync(result: SyncJob) -> None:
    print(count_line("sync", result.state, result.counts.model_dump()))
    if result.pictures is not None:
        seen = result.pictures
        print(f"pictures: {seen.held} held, {seen.read} read by OCR, {seen.skipped} skipped")
    for error in result.errors:
        warn(f"{error.path}: {error.reason}" if error.path else error.reason)
    for path in result.unreadable_files or []:
        warn(f"{path}: kept as indexed, not read again: that needs the [ocr] extra")


def show_list(result: ListResult) -> None:
    for row in result.files:
        ocr = f" [ocr:{row.ocr_engine}]" if row.ocr_engine else ""
        labels = label_suffix(row.labels, row.date, row.date_source)
        print(f"{row.state:<12} {row.chunks:>5}  {row.display_path}{ocr}{labels}")
    if result.ignored:
        print(f"{result.ignored} excluded by .miniragignore rules")
    for folder in result.unlisted_folders or []:
        warn(folder.reason)
    warn_filter(result.filter_counts, result.filter_notice)


# status's fields that say something is wrong: printed first, as their own lines.
_STATUS_PROBLEMS = (
    "errors",
    "storeError",
    "modelError",
    "modelMismatch",
    "schemeWarning",
    "indexModelNote",
)


def status_problem_lines(result: StatusResult) -> list[str]:
    """Everything wrong that status carries, errors before warnings, one line each."""
    errors: list[str | None] = [
        f"configuration error: {result.config_error}" if result.config_error else None,
        result.store_error,
        *(result.errors or []),
        result.model_error,
        result.model_mismatch,
    ]
    if result.labels is not None and result.labels.error:
        errors.append(f"labels: {result.labels.error}")
    warnings = [result.scheme_warning, result.index_model_note]
    return [f"error: {e}" for e in errors if e] + [f"warning: {w}" for w in warnings if w]


def show_status(result: StatusResult) -> None:
    """What is wrong first, then the configuration and the index, all on stdout."""
    problems = status_problem_lines(result)
    for line in problems:
        print(line)
    if problems:
        print()
    if result.config_error:
        print(f"version: {result.version}")
        return
    for key, value in result.dump().items():
        if key not in (*_STATUS_PROBLEMS, "labels"):
            print(f"{key}: {_status_value(value)}")
    if result.labels is not None and not result.labels.error:
        for line in label_block_lines(result.labels):
            print(line)


def _status_value(value: Any) -> Any:
    """An object as JSON, a list as one comma-separated line (its objects as JSON), "-" when
    the list is empty."""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if not isinstance(value, list):
        return value
    shown = (json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v) for v in value)
    return ", ".join(shown) or "-"


def label_block_lines(block: LabelsStatus) -> list[str]:
    """status's labels block as lines: the model state, then each facet and its values."""
    if block.error:
        return [f"labels: error: {block.error}"]
    lines = [f"labels: model {block.model}, {block.undated or 0} documents undated"]
    if block.model_hint:
        lines.append(f"  model hint: {block.model_hint}")
    for name, facet in (block.facets or {}).items():
        within = f", within {', '.join(facet.within)}" if facet.within else ""
        lines.append(
            f"  {name}: {facet.question} ({facet.unlabelled} unlabelled, "
            f"{facet.uncertain} uncertain{within})"
        )
        for value in facet.values:
            lines.append(f"    {value.id} ({value.count}): {value.description}")
    return lines


def show_neighbors(result: NeighborsResult) -> None:
    print(result.display_path)
    for chunk in result.chunks:
        mark = ">" if chunk.is_target else " "
        print(f"{mark} chunk {chunk.chunk_index}{page_suffix(chunk.pages)}")
        print("    " + chunk.text.replace("\n", "\n    "))


def show_read(result: DocumentText) -> None:
    print(result.text)


def show_delete(result: Deleted) -> None:
    print(f"deleted {result.source} ({counted(result.deleted, 'chunk')}); the file is untouched")


def try_lines(result: ClassifyTry) -> list[str]:
    """The human output of ``classify try`` (stdout); problems go to stderr separately."""
    lines = [result.file]
    for name, entry in result.facets.items():
        if entry.value is None:
            lines.append(f"  {name}: not set ({entry.not_set})")
            continue
        text = f"  {name}: {entry.value}  {entry.confidence or 0:.2f} {entry.source}"
        if entry.uncertain:
            text += "  uncertain"
        if entry.runner_up and entry.uncertain:
            text += f" (runner-up {entry.runner_up})"
        lines.append(text)
        if entry.distribution:
            ranked = sorted(entry.distribution.items(), key=lambda item: -item[1])
            lines.append("    " + "  ".join(f"{vid} {p:.2f}" for vid, p in ranked))
    if result.date:
        lines.append(f"  date: {result.date} ({result.date_source})")
    else:
        lines.append("  date: none")
    return lines


def show_try(result: ClassifyTry) -> None:
    for line in try_lines(result):
        print(line)
