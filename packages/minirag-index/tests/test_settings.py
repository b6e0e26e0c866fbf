import pytest

from minirag_index import IndexConfigError, load_index_settings


def test_defaults(monkeypatch):
    for name in ("MODEL_NAME", "CHUNK_TOKEN_BUDGET", "RAG_HYBRID_WEIGHT", "RAG_GROUPING"):
        monkeypatch.delenv(name, raising=False)
    settings = load_index_settings()
    assert settings.MODEL_NAME == "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
    assert settings.CHUNK_TOKEN_BUDGET == 110
    assert settings.RAG_HYBRID_WEIGHT == 0.6
    assert settings.RAG_GROUPING is None
    assert settings.CACHE_DIR.name == "models"


@pytest.mark.parametrize(
    ("name", "value", "accepts"),
    [
        ("CHUNK_TOKEN_BUDGET", "200", "16 to 128"),
        ("CHUNK_TOKEN_BUDGET", "8", "16 to 128"),
        ("RAG_HYBRID_WEIGHT", "1.5", "0.0"),
        ("RAG_GROUPING", "nearby", '"similar" or "related"'),
        ("RAG_MAX_FILES", "0", "at least 1"),
        ("RAG_MAX_DISTANCE", "-1", "non-negative"),
    ],
)
def test_errors_name_the_variable_and_what_it_accepts(monkeypatch, name, value, accepts):
    monkeypatch.setenv(name, value)
    with pytest.raises(IndexConfigError) as info:
        load_index_settings()
    assert name in str(info.value)
    assert accepts in str(info.value)


def test_empty_optional_values_mean_unset(monkeypatch):
    monkeypatch.setenv("RAG_GROUPING", "")
    monkeypatch.setenv("RAG_MAX_FILES", " ")
    settings = load_index_settings()
    assert settings.RAG_GROUPING is None and settings.RAG_MAX_FILES is None
