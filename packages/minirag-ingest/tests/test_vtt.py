from __future__ import annotations

import pytest

from minirag_ingest.conversion.convert import ConversionError
from minirag_ingest.conversion.vtt import format_timestamp, vtt_to_markdown

TEAMS = """WEBVTT

NOTE recorded by Teams

4f1c2a9e-8d21-4b57-9d0e-1a2b3c4d5e6f/15-0
00:00:03.120 --> 00:00:07.480
<v Anna Petrova>Good morning, everyone. Let's start with</v>

4f1c2a9e-8d21-4b57-9d0e-1a2b3c4d5e6f/15-1
00:00:07.480 --> 00:00:11.020
<v Anna Petrova>the warehouse stock report for August.</v>

4f1c2a9e-8d21-4b57-9d0e-1a2b3c4d5e6f/22-0
00:00:11.500 --> 00:00:14.000
<v John Smith>Thanks, Anna. <i>Numbers</i> are in the deck.</v>

4f1c2a9e-8d21-4b57-9d0e-1a2b3c4d5e6f/30-0
01:02:05.000 --> 01:02:09.250
<v Anna Petrova>We are over time, let's wrap up.</v>
"""


def _md(text: str) -> str:
    return vtt_to_markdown(text.encode("utf-8"), source="call.vtt")


def test_teams_transcript_becomes_turns() -> None:
    assert _md(TEAMS) == (
        "**Anna Petrova** 00:03\n"
        "Good morning, everyone. Let's start with the warehouse stock report for August.\n\n"
        "**John Smith** 00:11\n"
        "Thanks, Anna. Numbers are in the deck.\n\n"
        "**Anna Petrova** 01:02:05\n"
        "We are over time, let's wrap up.\n"
    )


def test_cue_ids_timings_and_notes_are_dropped() -> None:
    out = _md(TEAMS)
    assert "-->" not in out
    assert "4f1c2a9e" not in out
    assert "NOTE" not in out
    assert "<" not in out


def test_speaker_colon_style_and_style_blocks() -> None:
    text = (
        "WEBVTT\nKind: captions\nLanguage: ru\n\nSTYLE\n::cue { color: white; }\n\n"
        "1\n00:00:01.000 --> 00:00:03.000\nИван Петров: Добрый день, коллеги.\n\n"
        "2\n00:00:03.000 --> 00:00:05.000\nИван Петров: Начнём с отчёта.\n\n"
        "3\n00:00:05.500 --> 00:00:06.000\nMaria Lopez: Sure.\n"
    )
    assert _md(text) == (
        "**Иван Петров** 00:01\nДобрый день, коллеги. Начнём с отчёта.\n\n"
        "**Maria Lopez** 00:05\nSure.\n"
    )


def test_captions_without_speakers_keep_their_text() -> None:
    text = "WEBVTT\n\n00:01.000 --> 00:02.000\nfirst line\n\n00:02.000 --> 00:03.000\nsecond\n"
    assert _md(text) == "00:01\nfirst line second\n"


def test_same_words_from_two_speakers_are_both_kept() -> None:
    text = (
        "WEBVTT\n\n00:01.000 --> 00:02.000\n<v A B>Yes.</v>\n\n"
        "00:02.000 --> 00:03.000\n<v C D>Yes.</v>\n"
    )
    assert _md(text) == "**A B** 00:01\nYes.\n\n**C D** 00:02\nYes.\n"


def test_encodings_with_bom() -> None:
    expected = _md(TEAMS)
    assert vtt_to_markdown(b"\xef\xbb\xbf" + TEAMS.encode("utf-8")) == expected
    assert vtt_to_markdown(TEAMS.encode("utf-16")) == expected
    assert vtt_to_markdown(b"\xfe\xff" + TEAMS.encode("utf-16-be")) == expected


def test_undecodable_bytes_ask_for_utf8() -> None:
    data = "WEBVTT\n\n00:01.000 --> 00:02.000\nПривет\n".encode("cp1251")
    with pytest.raises(ConversionError, match="UTF-8") as info:
        vtt_to_markdown(data, source="/calls/meeting.vtt")
    assert "meeting.vtt" in str(info.value)
    assert "\n" not in str(info.value)


def test_garbage_bytes_fail() -> None:
    with pytest.raises(ConversionError):
        vtt_to_markdown(bytes(range(256)) * 4, source="junk.vtt")


def test_missing_header_fails() -> None:
    with pytest.raises(ConversionError, match="WEBVTT"):
        _md("00:00:01.000 --> 00:00:02.000\nhello\n")


def test_no_cues_fails() -> None:
    with pytest.raises(ConversionError, match="no readable cues"):
        _md("WEBVTT\n\nNOTE nothing here\n")
    with pytest.raises(ConversionError):
        _md("")


def test_malformed_cues_are_skipped() -> None:
    text = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:1x.000\nbroken\n\n"
        "text without timing\n\n00:00:05.000 --> 00:00:06.000\nkept\n"
    )
    assert _md(text) == "00:05\nkept\n"


def test_rolling_captions_are_not_doubled() -> None:
    text = (
        "WEBVTT\n\n00:01.000 --> 00:02.000\nhello there\n\n"
        "00:02.000 --> 00:03.000\nhello there\nhow are you\n"
    )
    assert _md(text) == "00:01\nhello there how are you\n"


def test_format_timestamp() -> None:
    assert format_timestamp(65.9) == "01:05"
    assert format_timestamp(3599) == "59:59"
    assert format_timestamp(3600) == "01:00:00"
    assert format_timestamp(4 * 3600 + 5) == "04:00:05"
