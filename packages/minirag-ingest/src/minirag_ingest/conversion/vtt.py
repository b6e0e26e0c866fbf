"""A small WebVTT reader that turns a call transcript into speaker turns in Markdown.

markitdown has no WebVTT converter and would index cue ids and timings as text, so transcripts
are read here. Each turn becomes a ``**Speaker** MM:SS`` line followed by what was said; Teams
cuts one utterance into several cues, and consecutive cues of the same speaker are joined again.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass

from minirag_ingest.errors import ConversionError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_TS = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?"
_TIMING = re.compile(rf"^\s*{_TS}\s*-->\s*{_TS}(?:\s.*)?$")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>", re.I)
_TAG = re.compile(r"</?[^>\s][^>]*>")
_SPEAKER_PREFIX = re.compile(
    r"^((?:[^\W\d_][\w'’.-]*)(?:\s+[^\W\d_][\w'’.-]*){0,3})\s*:\s+(\S.*)$", re.S
)
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": " ", "&lrm;": "", "&rlm;": ""}
# Speaker-less captions still get a fresh timestamp now and then, so a long film or lecture
# does not collapse into one turn stamped 00:00.
_UNNAMED_TURN_SECONDS = 60.0


@dataclass
class _Turn:
    speaker: str | None
    start: float
    parts: list[str]


def vtt_to_markdown(data: bytes, *, source: str | os.PathLike[str] | None = None) -> str:
    """Convert the bytes of a ``.vtt`` file to Markdown turns separated by blank lines."""
    text = decode_vtt(data, source=source)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or not lines[0].lstrip("\ufeff").startswith("WEBVTT"):
        raise ConversionError(source, "not a WebVTT file: the first line is not 'WEBVTT'")
    segments = [seg for cue in _cues(lines) for seg in _cue_segments(*cue)]
    if not segments:
        raise ConversionError(source, "the WebVTT file contains no readable cues")
    return "\n\n".join(_format_turn(turn) for turn in _turns(segments)) + "\n"


def decode_vtt(data: bytes, *, source: str | os.PathLike[str] | None = None) -> str:
    """Decode by BOM (UTF-8, UTF-16, UTF-32) or as strict UTF-8; anything else is refused."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                break
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and "\x00" not in text:
            return text
    raise ConversionError(
        source, "cannot tell the text encoding of this WebVTT file; save it as UTF-8 and retry"
    )


def _cues(lines: list[str]) -> list[tuple[float, list[str]]]:
    """(start seconds, text lines) of each cue; header, NOTE/STYLE/REGION blocks are skipped.

    A timing line inside a block starts a new cue, and a line repeated from the cue before is
    dropped: YouTube-style rolling captions show every line twice.
    """
    cues: list[tuple[float, list[str]]] = []
    previous: set[str] = set()
    for block in _blocks(_after_header(lines[1:])):
        timing_at = next((i for i, line in enumerate(block) if "-->" in line), None)
        if timing_at is None or timing_at > 1:
            continue  # NOTE, STYLE, REGION, or text without a timing line
        start: float | None = None
        text: list[str] = []
        for line in [*block[timing_at:], "00:00 --> 00:00"]:
            match = _TIMING.match(line)
            if match is None and "-->" not in line:
                if _repeat_key(line) not in previous:
                    text.append(line)
                continue
            if start is not None and text:
                cues.append((start, text))
                previous = {_repeat_key(t) for t in text}
            start = _seconds(*match.groups()[:4]) if match else None
            text = []
    return cues


def _repeat_key(line: str) -> str:
    """A line's words with its speaker kept, so "Yes." from two people is not a repeat."""
    return _clean_text(_VOICE.sub(lambda m: f"[{m.group(1)}] ", line))


def _after_header(lines: list[str]) -> list[str]:
    """Drop the header lines (Kind:, Language:, ...) that follow WEBVTT up to a blank line."""
    for i, line in enumerate(lines):
        if not line.strip() or "-->" in line:
            return lines[i:]
    return []


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _cue_segments(start: float, text_lines: list[str]) -> list[tuple[str | None, float, str]]:
    """Split a cue's text into (speaker, start, text) pieces, one per voice tag."""
    raw = " ".join(line.strip() for line in text_lines)
    pieces: list[tuple[str | None, str]] = []
    matches = list(_VOICE.finditer(raw))
    if not matches:
        pieces.append((None, raw))
    else:
        if raw[: matches[0].start()].strip():
            pieces.append((None, raw[: matches[0].start()]))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(raw)
            name = _clean_text(match.group(1) or "") or None
            pieces.append((name, raw[match.end() : end]))
    segments = []
    for speaker, piece in pieces:
        words = _clean_text(piece)
        if speaker is None:
            speaker, words = _speaker_from_prefix(words)
        if words:
            segments.append((speaker, start, words))
    return segments


def _speaker_from_prefix(text: str) -> tuple[str | None, str]:
    """Read the "Speaker: what was said" style some tools write instead of voice tags."""
    match = _SPEAKER_PREFIX.match(text)
    if match is None:
        return None, text
    name = match.group(1)
    if len(name) > 40 or not all(word[0].isupper() for word in name.split()):
        return None, text
    return name, match.group(2).strip()


def _turns(segments: list[tuple[str | None, float, str]]) -> list[_Turn]:
    turns: list[_Turn] = []
    for speaker, start, words in segments:
        last = turns[-1] if turns else None
        if last is not None and last.speaker == speaker and not _too_long(last, start):
            last.parts.append(words)
        else:
            turns.append(_Turn(speaker, start, [words]))
    return turns


def _too_long(turn: _Turn, start: float) -> bool:
    return turn.speaker is None and start - turn.start >= _UNNAMED_TURN_SECONDS


def _format_turn(turn: _Turn) -> str:
    stamp = format_timestamp(turn.start)
    head = f"**{turn.speaker}** {stamp}" if turn.speaker else stamp
    return f"{head}\n{' '.join(turn.parts)}"


def format_timestamp(seconds: float) -> str:
    """``MM:SS`` below an hour, ``HH:MM:SS`` from an hour on."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def _seconds(hours: str | None, minutes: str, secs: str, millis: str | None) -> float:
    fraction = int(millis.ljust(3, "0")) / 1000 if millis else 0.0
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(secs) + fraction


def _clean_text(text: str) -> str:
    text = _TAG.sub("", text)
    for entity, char in _ENTITIES.items():
        text = text.replace(entity, char)
    return " ".join(text.split())
