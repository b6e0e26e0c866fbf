from __future__ import annotations

from pathlib import Path

import pytest

from minirag_index.settings import load_index_settings
from minirag_ingest.settings import (
    DEFAULT_MAX_FILE_SIZE,
    ConfigError,
    IngestSettings,
    load_settings,
    resolve_db_path,
    resolve_roots,
)

_VARS = (
    "BASE_DIR",
    "BASE_DIRS",
    "DB_PATH",
    "MAX_FILE_SIZE",
    "ALLOW_PRIVATE_URLS",
    "CHUNK_TOKEN_BUDGET",
    "RAG_OCR_MIN_CHARS_PER_PAGE",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.base_dir is None
    assert settings.base_dirs is None
    assert settings.max_file_size == DEFAULT_MAX_FILE_SIZE == 104_857_600
    assert settings.allow_private_urls is False
    assert settings.chunk_token_budget == 110
    assert settings.rag_ocr_min_chars_per_page == 25


@pytest.mark.parametrize("value", ["200", "8", "ten"])
def test_chunk_token_budget_is_16_to_128(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CHUNK_TOKEN_BUDGET", value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "CHUNK_TOKEN_BUDGET" in str(caught.value) and "16 to 128" in str(caught.value)
    assert caught.value.variable == "CHUNK_TOKEN_BUDGET"


def test_ocr_min_chars_per_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_OCR_MIN_CHARS_PER_PAGE", "0")
    assert load_settings().rag_ocr_min_chars_per_page == 0


@pytest.mark.parametrize("value", ["-1", "many", "2.5"])
def test_bad_min_chars_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("RAG_OCR_MIN_CHARS_PER_PAGE", value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "RAG_OCR_MIN_CHARS_PER_PAGE" in str(caught.value)
    assert caught.value.variable == "RAG_OCR_MIN_CHARS_PER_PAGE"


@pytest.mark.parametrize("word", ["1", "true", "TRUE", "Yes", "on", " ON "])
def test_allow_private_urls_true_words(monkeypatch: pytest.MonkeyPatch, word: str) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", word)
    assert load_settings().allow_private_urls is True


@pytest.mark.parametrize("word", ["0", "false", "False", "no", "OFF"])
def test_allow_private_urls_false_words(monkeypatch: pytest.MonkeyPatch, word: str) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", word)
    assert load_settings().allow_private_urls is False


@pytest.mark.parametrize("word", ["maybe", "y", "t", "2", "enabled"])
def test_allow_private_urls_other_words_are_config_errors(
    monkeypatch: pytest.MonkeyPatch, word: str
) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", word)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert "ALLOW_PRIVATE_URLS" in message
    assert "1/true/yes/on" in message and "0/false/no/off" in message
    assert caught.value.variable == "ALLOW_PRIVATE_URLS"


def test_empty_variables_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARS:
        monkeypatch.setenv(name, "")
    settings = load_settings()
    assert settings.allow_private_urls is False
    assert settings.base_dirs is None
    assert settings.max_file_size == DEFAULT_MAX_FILE_SIZE


def test_max_file_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_FILE_SIZE", "209715200")
    assert load_settings().max_file_size == 209_715_200


@pytest.mark.parametrize("value", ["0", "-5", "abc", "1.5", "10MB"])
def test_bad_max_file_size(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MAX_FILE_SIZE", value)
    with pytest.raises(ConfigError, match="MAX_FILE_SIZE must be a positive whole number"):
        load_settings()


def test_every_bad_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_FILE_SIZE", "big")
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "maybe")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "MAX_FILE_SIZE" in str(caught.value)
    assert "ALLOW_PRIVATE_URLS" in str(caught.value)


# --- roots -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", ["{not json", "[]", '[""]', "[1]", '"/docs"', '{"a": "/docs"}', '["/a", "  "]', "null"]
)
def test_bad_base_dirs(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("BASE_DIRS", raw)
    settings = load_settings()  # loading still works, so status can report the problem
    with pytest.raises(ConfigError) as caught:
        resolve_roots(None, settings)
    message = str(caught.value)
    assert message.startswith(
        "BASE_DIRS must be a JSON array of one or more non-empty path strings"
    )
    assert '["/docs/a", "/docs/b"]' in message  # an example of the accepted form
    assert caught.value.variable == "BASE_DIRS"


def test_base_dirs_list(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("BASE_DIRS", f'["{a}", "{b}", "{a}"]')
    assert resolve_roots(None, load_settings()) == [a, b]


def test_precedence_cli_over_everything(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BASE_DIRS", f'["{tmp_path / "env-list"}"]')
    monkeypatch.setenv("BASE_DIR", str(tmp_path / "env-one"))
    roots = resolve_roots([str(tmp_path / "c1"), str(tmp_path / "c2")], load_settings())
    assert roots == [tmp_path / "c1", tmp_path / "c2"]


def test_cli_replaces_even_a_broken_base_dirs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BASE_DIRS", "{not json")
    assert resolve_roots([str(tmp_path)], load_settings()) == [tmp_path]


def test_precedence_base_dirs_over_base_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BASE_DIRS", f'["{tmp_path / "list"}"]')
    monkeypatch.setenv("BASE_DIR", str(tmp_path / "one"))
    assert resolve_roots(None, load_settings()) == [tmp_path / "list"]
    assert resolve_roots([], load_settings()) == [tmp_path / "list"]


def test_base_dir_then_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BASE_DIR", str(tmp_path / "one"))
    assert resolve_roots(None, load_settings()) == [tmp_path / "one"]
    monkeypatch.delenv("BASE_DIR")
    monkeypatch.chdir(tmp_path)
    assert resolve_roots(None, load_settings()) == [tmp_path.resolve()]


def test_roots_are_real_absolute_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert resolve_roots(["link"], IngestSettings()) == [real]
    assert resolve_roots(["~/real/../link"], IngestSettings()) == [real]
    assert resolve_roots(["./missing"], IngestSettings()) == [tmp_path / "missing"]


def test_empty_cli_base_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--base-dir"):
        resolve_roots([str(tmp_path), ""], IngestSettings())


def test_db_path_default_and_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    roots = [tmp_path / "first", tmp_path / "second"]
    assert resolve_db_path(roots, None).local == tmp_path / "first" / ".minirag" / "lancedb"
    monkeypatch.setenv("DB_PATH", str(tmp_path / "shared"))
    configured = load_index_settings().DB_PATH
    assert resolve_db_path(roots, configured).local == tmp_path / "shared"
    assert resolve_db_path(roots, configured, str(tmp_path / "cli")).local == tmp_path / "cli"


def test_db_path_may_be_an_object_store_uri(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DB_PATH", "s3://team-bucket/shared/index/")
    where = resolve_db_path([tmp_path], load_index_settings().DB_PATH)
    assert (where.kind, str(where), where.local) == ("s3", "s3://team-bucket/shared/index", None)
    assert where.beside(".sync-lease.json") == "s3://team-bucket/shared/index/.sync-lease.json"
    assert str(resolve_db_path([tmp_path], None, "gs://bucket")) == "gs://bucket"
    for bad, why in [
        ("ftp://host/index", "ftp:// is not a supported store"),
        ("s3://KEY:SECRET@bucket/index", "credentials do not belong in the URI"),
        ("s3:///index", "names no bucket"),
    ]:
        monkeypatch.setenv("DB_PATH", bad)
        with pytest.raises(ConfigError, match="DB_PATH must be") as caught:
            load_index_settings()
        assert "SECRET" not in str(caught.value)  # a refused value is shown without its keys
        with pytest.raises(ConfigError, match=why):
            resolve_db_path([tmp_path], None, bad)
