"""Upkeep from stored text in a sync: look-alike signatures for documents that lack one, and
labels made again for documents whose taxonomy or place changed. Nothing is read from disk or
embedded."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_index import SourceDoc, rebuild_document
from minirag_index.search import decode_labels
from minirag_ingest.labels.resolve import needs_relabel, relative_path
from minirag_ingest.sync.pass_state import describe

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_ingest.sync.pass_state import SyncState

log = logging.getLogger(__name__)

SIGN_BATCH = 256  # documents signed per read and per commit


def sign(state: SyncState, sources: list[str]) -> None:
    """Give documents a look-alike signature from their stored chunk text, a batch of
    sources per read and per commit; nothing is read from disk or embedded."""
    for start in range(0, len(sources), SIGN_BATCH):
        state.check_stop()
        group = sources[start : start + SIGN_BATCH]
        try:
            sign_batch(state, group)
        except Exception as exc:
            log.warning("signing %d documents in one commit failed (%s)", len(group), exc)
            for source in group:
                sign_one(state, source)
        state.advance(len(group))


def sign_batch(state: SyncState, group: list[str]) -> None:
    by_source = state.index.chunks_of(group)
    signatures = {
        source: state.pipeline.signature_for(rebuild_document(chunks))
        for source, chunks in by_source.items()
    }
    signed = {s: sig for s, sig in signatures.items() if sig is not None}
    if not signed:
        return
    state.index.set_signatures(signed)
    state.report.signed += len(signed)
    state.wrote = True


def sign_one(state: SyncState, source: str) -> None:
    try:
        chunks = state.index.source_chunks(source)
        signature = state.pipeline.signature_for(rebuild_document(chunks)) if chunks else None
        if signature is not None:
            state.index.set_signatures({source: signature})
            state.report.signed += 1
            state.wrote = True
    except Exception as exc:  # a missing signature costs look-alikes, nothing else
        log.warning("could not sign %s: %s", source, exc)


def relabel(state: SyncState, candidates: list[tuple[str, SourceInfo]]) -> None:
    """Label again, from the stored chunk text, every document whose labels were made under
    another taxonomy or at another path, or that the model still owes an answer. Nothing is
    read from disk or embedded; a label problem is reported, never a failed file."""
    labels = state.labels
    if labels.error is not None:
        path = str(state.pipeline.taxonomy.path) if state.pipeline.taxonomy else ""
        state.report.errors.append({"path": path, "reason": f"labels not updated: {labels.error}"})
        return
    taxonomy = labels.taxonomy
    if taxonomy is None:
        return
    due = [
        (source, info, rel)
        for source, info in candidates
        if needs_relabel(info.labels, taxonomy, rel := rel_path(state, source, info))
    ]
    if not due:
        return
    state.total += len(due)
    state.tell()
    fingerprint = taxonomy.fingerprint()
    for source, info, rel in due:
        state.check_stop()
        try:
            stored = decode_labels(info.labels)
            broken = labels.session.problem if labels.session is not None else None
            if (
                broken is not None
                and stored is not None
                and stored.taxonomy == fingerprint
                and stored.at == rel
            ):
                # Only the model owes it an answer, and the model already failed this sync.
                state.label_problems(source, [f"{name}: {broken}" for name in stored.pending])
                continue
            text = state.index.read_document(source)
            if text is None:
                continue
            name = Path(source).name if info.source_type == "file" else None
            doc = SourceDoc(source=source, labels=info.labels)
            doc, _, problems = labels.label(doc, text, rel, name)
            state.label_problems(source, problems)
            if doc.labels != info.labels:
                state.index.set_labels(source, doc.labels)
                state.report.relabelled += 1
                state.wrote = True
        except Exception as exc:  # labels are worth a warning, never a failed sync
            log.warning("could not re-label %s: %s", source, exc)
            state.report.errors.append(
                {"path": source, "reason": f"could not re-label it: {describe(exc)}"}
            )
        finally:
            state.advance(1)


def rel_path(state: SyncState, source: str, info: SourceInfo) -> str | None:
    if info.source_type != "file":
        return None
    return relative_path(source, state.roots)
