"""find_mentions through the table's prefix index equals a plain scan of every chunk.

A generated corpus (Cyrillic and Latin words, case and ё, Markdown escapes, soft hyphens,
zero-width marks, decomposed letters, headings repeated as context) is stored through the
store; hundreds of terms drawn from it (open prefixes, quoted words, phrases, pairs with
match all/any) are answered by the index and by the brute force below, written from the
spec's rule without the engine's code.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import pytest

from minirag_index import ChunkInput, MiniragIndex, SourceDoc
from minirag_index.search.mentions import MAX_PAGE, build_corpus, find_mentions
from minirag_index.storage import mention_columns

STEMS = [
    "акт", "договор", "отчёт", "контакт", "поставк", "сверк", "счёт", "ёлк", "проект", "прогноз",
    "про", "ак", "act", "actual", "contract", "report", "gear", "gearbox", "box", "data",
]  # fmt: skip
ENDINGS = ["", "", "а", "ов", "ом", "у", "ами", "s", "ing"]
SPECIAL = [
    r"ТЗ\_2024\_015",
    "ТЗ_2024_016",
    "до\u00adго\u00adвор",
    "ак\u200bт",
    "и\u0306ога",  # й decomposed
    "ОТЧЁТ",
    "15%",
    "-15%",
    "e-mail",
    "data_set",
    "2024",
]
SEPARATORS = [" ", " ", " ", "\n", "  ", ", ", ". ", " - ", "\n\n"]


def word(rng: random.Random) -> str:
    if rng.random() < 0.08:
        return rng.choice(SPECIAL)
    w = rng.choice(STEMS) + rng.choice(ENDINGS)
    r = rng.random()
    return w.upper() if r < 0.1 else w.capitalize() if r < 0.25 else w


def sentence(rng: random.Random, n: int) -> str:
    out = [word(rng)]
    for _ in range(n - 1):
        out += [rng.choice(SEPARATORS), word(rng)]
    return "".join(out)


def generate(seed: int, docs: int) -> list[tuple[SourceDoc, list[ChunkInput]]]:
    rng = random.Random(seed)
    items = []
    for d in range(docs):
        title = sentence(rng, rng.randint(1, 3)) if rng.random() < 0.7 else ""
        chunks = []
        for section in range(rng.randint(1, 4)):
            heading = "# " + sentence(rng, rng.randint(1, 3))
            other = "| " + sentence(rng, 2) + " |"
            for _ in range(rng.randint(1, 4)):
                body = sentence(rng, rng.randint(3, 25))
                r = rng.random()
                if r < 0.15:
                    chunks.append(ChunkInput(body, section=section))
                    continue
                context = other if r < 0.3 else heading
                # Most contexts end at a line break; a few run straight into the body.
                joiner = "" if rng.random() < 0.1 else "\n"
                text = context + joiner + body
                chunks.append(ChunkInput(text, len(context + joiner), section=section))
        items.append((SourceDoc(f"/docs/{d:03d}.md", title=title), chunks))
    return items


# --------------------------------------------------------------------------- brute force


def plain_fold(text: str) -> str:
    for c in "\u00ad\u200b\u200c\u200d\u2060\ufeff":
        text = text.replace(c, "")
    text = text.replace("\x00", " ")
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    text = unicodedata.normalize("NFC", text.casefold())
    return text.replace("ё", "е")


def plain_pattern(term: str) -> tuple[re.Pattern[str], str]:
    exact = len(term) >= 2 and term[0] == '"' and term[-1] == '"'
    words = plain_fold(term.strip('"') if exact else term).split()
    body = r"\s+".join(re.escape(w) for w in words)
    start = r"(?<![^\W_])" if words[0][0].isalnum() else ""
    end = ""
    if words[-1][-1].isalnum():
        end = r"(?![^\W_])" if exact else r"[^\W_]*"
    return re.compile(start + body + end), " ".join(words)


@dataclass
class Row:
    source: str
    title: str
    chunk_index: int
    section: int
    text: str
    context_chars: int


def searched_segments(rows: list[Row]) -> list[tuple[Row, str, int]]:
    """Each chunk with the folded text searched and how much of it is context: a heading that
    every chunk of a section repeats is searched in the first chunk carrying it only."""
    out = []
    seen: set[tuple[str, int, str]] = set()
    for r in sorted(rows, key=lambda r: (r.source, r.chunk_index)):
        if r.context_chars:
            ctx, rest = plain_fold(r.text[: r.context_chars]), plain_fold(r.text[r.context_chars :])
            if (r.source, r.section, ctx) in seen:
                out.append((r, rest, 0))
            else:
                seen.add((r.source, r.section, ctx))
                out.append((r, ctx + rest, len(ctx)))
        else:
            out.append((r, plain_fold(r.text), 0))
    return out


def brute_force(segments: list[tuple[Row, str, int]], terms: list[str], match: str) -> dict:
    rows = [r for r, _, _ in segments]
    docs = sorted({r.source for r in rows})
    titles = {r.source: r.title for r in rows}
    patterns = [plain_pattern(t)[0] for t in terms]
    per_doc_terms: dict[str, set[int]] = {d: set() for d in docs}
    forms: dict[str, set[tuple[str, str]]] = {d: set() for d in docs}
    title_hit = {d: False for d in docs}
    body: dict[str, set[int]] = {d: set() for d in docs}
    context: dict[str, dict[int, list[int]]] = {d: {} for d in docs}
    for d in docs:
        for k, p in enumerate(patterns):
            for m in p.finditer(plain_fold(titles[d])):
                per_doc_terms[d].add(k)
                title_hit[d] = True
                forms[d].add((" ".join(m.group().split()), d))
    for r, segment, ctx_len in segments:
        for k, p in enumerate(patterns):
            for m in p.finditer(segment):
                per_doc_terms[r.source].add(k)
                forms[r.source].add((" ".join(m.group().split()), r.source))
                if m.end() > ctx_len:
                    body[r.source].add(r.chunk_index)
                else:
                    context[r.source].setdefault(r.section, []).append(r.chunk_index)
    want = set(range(len(terms)))
    matched = [
        d for d in docs if (per_doc_terms[d] == want if match == "all" else per_doc_terms[d])
    ]
    section_of = {(r.source, r.chunk_index): r.section for r in rows}
    counts = {}
    for d in matched:
        sections_with_body = {section_of[(d, c)] for c in body[d]}
        extra = [s for s in context[d] if s not in sections_with_body]
        counts[d] = len(body[d]) + len(extra)
    form_docs = Counter(f for d in matched for f, _ in forms[d])
    ranked = sorted(matched, key=lambda d: (not title_hit[d], -counts[d], d))
    return {
        "matched": len(matched),
        "chunks": sum(counts.values()),
        "forms": sorted(form_docs.items(), key=lambda f: (-f[1], f[0])),
        "documents": [(d, counts[d], title_hit[d]) for d in ranked][:MAX_PAGE],
    }


def summary(result) -> dict:
    return {
        "matched": result.matched_documents,
        "chunks": result.matched_chunks,
        "forms": [(f.form, f.documents) for f in result.forms],
        "documents": [(d.source, d.matching_chunks, d.title_match) for d in result.documents],
    }


def draw_terms(rng: random.Random, rows: list[Row], n: int) -> list[tuple[list[str], str]]:
    words = [w for r in rows for w in r.text.split()]
    queries: list[tuple[list[str], str]] = []
    while len(queries) < n:
        w = rng.choice(words).strip(".,|#")
        if not w:
            continue
        kind = rng.random()
        if kind < 0.4:  # an open prefix of a word
            term = w[: rng.randint(1, len(w))]
        elif kind < 0.6:
            term = f'"{w}"'
        elif kind < 0.8:  # a phrase of two neighbouring words, as a user would type it
            r = rng.choice(rows).text.split()
            if len(r) < 2:
                continue
            i = rng.randrange(len(r) - 1)
            term = f"{r[i].strip('.,|#')} {r[i + 1].strip('.,|#')}"
        else:
            term = rng.choice(["акт", "ак", "договор", "тз_2024_015", "-15%", "15", '"акт"'])
        if not plain_fold(term.strip('"')).split():
            continue
        terms = [term]
        if rng.random() < 0.3:
            terms.append(rng.choice(words).strip(".,|#") or "акт")
        queries.append((terms, "any" if rng.random() < 0.4 else "all"))
    return queries


def store_rows(index, items) -> None:
    vectors = [[(i % 7) / 7.0, 0.5, 0.25, 1.0] for i in range(max(len(c) for _, c in items))]
    index.store.replace_sources([(doc, chunks, vectors[: len(chunks)]) for doc, chunks in items])


def rows_of(items) -> list[Row]:
    return [
        Row(doc.source, doc.title, i, c.section, c.text, c.context_chars)
        for doc, chunks in items
        for i, c in enumerate(chunks)
    ]


@pytest.mark.parametrize("seed", [1, 2])
def test_find_mentions_equals_a_brute_force_scan(make_index, seed):
    rng = random.Random(seed)
    items = generate(seed, 500)
    index = make_index()
    store_rows(index, items[:300])
    index.store.optimize()  # these rows go into the prefix index...
    store_rows(index, items[300:])  # ...these are read without it
    rows = rows_of(items)
    assert len(rows) > 2500
    legacy = build_corpus(
        (r.source, r.title, r.chunk_index, r.text, r.context_chars, r.section) for r in rows
    )
    segments = searched_segments(rows)
    for terms, match in draw_terms(rng, rows, 150):
        want = brute_force(segments, terms, match)
        got = index.find_mentions(terms, match=match)
        assert summary(got) == want, (terms, match)
        assert summary(find_mentions(legacy, terms, match=match)) == want, (terms, match)
        for doc in got.documents:
            assert doc.title_match or doc.first_match is not None


def test_a_replaced_document_is_searched_as_it_is_now(make_index):
    items = generate(7, 40)
    index = make_index()
    store_rows(index, items)
    index.store.optimize()
    doc, _ = items[0]
    replaced = [ChunkInput("# Новый раздел\nзакрытый акт сверки", 14, section=0)]
    store_rows(index, [(doc, replaced)])
    items[0] = (doc, replaced)
    index.store.delete_source(items[1][0].source)
    segments = searched_segments(rows_of(items[:1] + items[2:]))
    for terms in (["акт"], ['"закрытый"'], ["новый раздел"], ["договор"], ["акт", "report"]):
        assert summary(index.find_mentions(terms)) == brute_force(segments, terms, "all"), terms


def test_an_index_from_before_the_mention_columns_answers_and_gains_them(make_index):
    items = generate(11, 60)
    index = make_index()
    store_rows(index, items)
    table = index.store.table()
    table.drop_index(mention_columns.index_name())
    table.drop_columns(list(mention_columns.COLUMN_TYPES))  # as an older version wrote it
    segments = searched_segments(rows_of(items))
    queries = [["акт"], ['"отчет"'], ["тз_2024_015"], ["gear box"], ["ак", "report"]]

    reader = MiniragIndex(index.settings, embedder=index.embedder, read_only=True)
    for terms in queries:
        assert summary(reader.find_mentions(terms)) == brute_force(segments, terms, "all")
    assert not mention_columns.has_columns(reader.store.table().schema.names)  # never writes

    writer = MiniragIndex(index.settings, embedder=index.embedder)
    assert mention_columns.is_current(writer.store.table())  # the writer's open adds them
    for terms in queries:
        assert summary(writer.find_mentions(terms)) == brute_force(segments, terms, "all")


def test_documents_split_across_read_batches_are_counted_once(make_index, monkeypatch):
    """Candidates and the per-version view read a few rows at a time: a document whose chunks
    straddle batches is still one document, with every chunk counted."""
    from minirag_index.search import mention_scan, stored_mentions

    monkeypatch.setattr(mention_scan, "BATCH_ROWS", 7)
    monkeypatch.setattr(stored_mentions, "VIEW_BATCH_ROWS", 11)
    rng = random.Random(5)
    items = generate(5, 80)
    index = make_index()
    store_rows(index, items)
    rows = rows_of(items)
    segments = searched_segments(rows)
    for terms, match in draw_terms(rng, rows, 40):
        assert summary(index.find_mentions(terms, match=match)) == brute_force(
            segments, terms, match
        ), (terms, match)
