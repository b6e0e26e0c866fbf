"""Choosing a document's title, and seeding the first chunk with it.

Order of preference: converter metadata, then the first ``# H1`` unless it only names a
section every document of a set shares (or has no words), then the file name when it says
something, then that H1 anyway, then the bare file name.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

# Opening sections shared across document sets: as a title they tell documents apart not at all.
# Compared after dropping section numbers, case and trailing punctuation.
BOILERPLATE_HEADINGS: frozenset[str] = frozenset(
    {
        # English
        "introduction",
        "change log",
        "changelog",
        "change history",
        "table of contents",
        "contents",
        "content",
        "general provisions",
        "general",
        "overview",
        "revision history",
        "document history",
        "version history",
        "abstract",
        "preface",
        "foreword",
        "purpose",
        "scope",
        "terms and definitions",
        "summary",
        # Russian (ё is folded to е before comparing)
        "введение",
        "лист изменений",
        "история изменений",
        "лист регистрации изменений",
        "содержание",
        "оглавление",
        "общие положения",
        "общие сведения",
        "аннотация",
        "предисловие",
        "назначение",
        "область применения",
        "термины и определения",
        "история версий",
        # German, French, Spanish
        "einleitung",
        "inhaltsverzeichnis",
        "inhalt",
        "allgemeines",
        "änderungshistorie",
        "sommaire",
        "table des matières",
        "généralités",
        "dispositions générales",
        "introducción",
        "índice",
        "contenido",
        "disposiciones generales",
        "historial de cambios",
    }
)

# Words machines put into file names. Function words are here too, so that "Copy of document"
# or "Screenshot at ..." consist of nothing but generic words.
GENERIC_NAME_WORDS: frozenset[str] = frozenset(
    {
        # English
        "untitled", "document", "documents", "doc", "new", "copy", "scan", "scanned", "img",
        "image", "dsc", "dscn", "dcim", "pxl", "vid", "mvimg", "pic", "picture", "screenshot",
        "screen", "shot", "photo", "file", "draft", "attachment", "temp", "tmp", "noname",
        "microsoft", "word", "excel", "powerpoint", "office", "whatsapp", "telegram",
        "of", "the", "a", "an", "at", "on", "in", "from", "and", "to", "version", "final",
        # Russian
        "без", "имени", "названия", "документ", "документа", "документы", "новый", "новая",
        "новое", "копия", "копии", "скан", "сканы", "сканирование", "фото", "изображение",
        "изображения", "снимок", "экрана", "файл", "файла", "черновик",
        "вложение", "рисунок", "и", "в", "на", "от", "из",
        # German
        "unbenannt", "dokument", "neu", "neues", "neue", "kopie", "bild", "datei", "entwurf",
        "bildschirmfoto", "von", "vom", "am", "um", "der", "die", "das",
        # French
        "sans", "titre", "nouveau", "nouvelle", "copie", "fichier", "brouillon",
        "capture", "écran", "ecran", "de", "du", "des", "le", "la", "les",
        # Spanish
        "sin", "título", "titulo", "documento", "nuevo", "nueva", "copia", "imagen", "archivo",
        "borrador", "captura", "pantalla", "foto", "el", "los", "las", "del", "y", "en",
    }
)  # fmt: skip

_MIN_STEM_CHARS = 4

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ANY_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_EMPHASIS = re.compile(r"(?<![\\\w])(\*\*|__|\*|`)(\S(?:.*?[^\s\\])?)\1")
_SECTION_NUMBER = re.compile(
    r"^(?:(?:section|chapter|раздел|глава)\s+)?(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.)\s*", re.I
)
_NAME_TOKENS = re.compile(r"[^\W\d_]+|\d+")


def choose_title(*, metadata_title: str | None, markdown: str, file_name: str | None) -> str:
    """Pick the title for a document; ``file_name`` is None for data and URL sources."""
    meta = _squash(metadata_title or "")
    if _has_words(meta):
        return meta
    h1 = first_h1(markdown)
    if h1 and _has_words(h1) and not is_boilerplate_heading(h1):
        return h1
    stem = name_title(file_name) if file_name else ""
    if stem and is_informative_stem(stem):
        return stem
    if h1 and _has_words(h1):
        return h1
    return stem


def first_h1(markdown: str) -> str | None:
    """Text of the first ATX ``# `` heading outside fenced code, with inline markup removed."""
    for line in _lines_outside_fences(markdown):
        match = _H1.match(line)
        if match:
            return heading_text(match.group(1) or "")
    return None


def heading_text(raw: str) -> str:
    """A heading's readable text: images and links reduced to their words, escapes undone."""
    text = _IMAGE.sub("", raw)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _ESCAPE.sub(r"\1", text)
    return _squash(text)


def is_boilerplate_heading(heading: str) -> bool:
    """True when a heading names a shared section ("1. Introduction") or holds no words."""
    heading = heading_text(heading)
    if not _has_words(heading):
        return True
    text = heading.casefold().replace("ё", "е")
    text = _SECTION_NUMBER.sub("", text, count=1)
    text = text.strip(" \t.:;-–—")
    return text in BOILERPLATE_HEADINGS


def name_title(file_name: str) -> str:
    """The file name without folder or extension, underscores turned into spaces."""
    stem = PurePath(PurePath(file_name).name).stem
    return _squash(stem.replace("_", " "))


def is_informative_stem(stem: str) -> bool:
    """A name says something unless it is short or only generic words and numbers."""
    stem = stem.strip()
    if len(stem) < _MIN_STEM_CHARS:
        return False
    words = [t for t in _NAME_TOKENS.findall(stem.casefold()) if not t.isdigit()]
    return any(len(word) > 1 and word not in GENERIC_NAME_WORDS for word in words)


def title_prefix_for_chunk(title: str, chunk_text: str) -> str | None:
    """The ``# Title`` block to put before chunk 0's embedded text, or None if not needed.

    None when there is no title or the chunk already carries it as a heading, so seeding the
    same chunk twice changes nothing.
    """
    title = _squash(title or "")
    if not title:
        return None
    wanted = _comparable(title)
    for line in _lines_outside_fences(chunk_text):
        match = _ANY_HEADING.match(line)
        if match and _comparable(heading_text(match.group(1) or "")) == wanted:
            return None
    return f"# {title}\n\n"


def _lines_outside_fences(markdown: str) -> list[str]:
    lines: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
            else:
                lines.append(line)
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            fence = None
    return lines


def _comparable(text: str) -> str:
    return unicodedata.normalize("NFC", _squash(text)).casefold()


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _squash(text: str) -> str:
    return " ".join(text.split())
