import pytest

from minirag_index import ConfigError, load_index_settings


def test_defaults(monkeypatch):
    for name in ("MODEL_NAME", "RAG_HYBRID_WEIGHT", "RAG_GROUPING", "INDEX_CACHE_MB"):
        monkeypatch.delenv(name, raising=False)
    settings = load_index_settings()
    assert settings.MODEL_NAME == "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
    assert settings.RAG_HYBRID_WEIGHT == 0.6
    assert settings.RAG_GROUPING is None
    assert settings.CACHE_DIR.name == "models"
    assert settings.INDEX_CACHE_MB == 448  # the README's figure


@pytest.mark.parametrize(
    ("name", "value", "accepts"),
    [
        ("RAG_HYBRID_WEIGHT", "1.5", "0.0"),
        ("RAG_GROUPING", "nearby", '"similar" or "related"'),
        ("RAG_MAX_FILES", "0", "at least 1"),
        ("RAG_MAX_DISTANCE", "-1", "non-negative"),
        ("INDEX_CACHE_MB", "8", "at least 16"),
        ("INDEX_CACHE_MB", "lots", "a whole number of MiB"),
    ],
)
def test_errors_name_the_variable_and_what_it_accepts(monkeypatch, name, value, accepts):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        load_index_settings()
    assert name in str(info.value)
    assert accepts in str(info.value)
    assert info.value.variable == name


def test_empty_optional_values_mean_unset(monkeypatch):
    monkeypatch.setenv("RAG_GROUPING", "")
    monkeypatch.setenv("RAG_MAX_FILES", " ")
    settings = load_index_settings()
    assert settings.RAG_GROUPING is None and settings.RAG_MAX_FILES is None
