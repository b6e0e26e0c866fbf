from __future__ import annotations

from pathlib import Path

import pytest

from minirag_mcp.config import Config, ConfigProblem, __version__, load_config
from minirag_mcp.instructions import BUDGET, POLICY, build_instructions


def test_cli_overrides_replace_the_environment(env: dict, tmp_path: Path) -> None:
    other = tmp_path / "other"
    config = load_config(
        {
            "base_dirs": [str(other), str(tmp_path / "third")],
            "db_path": str(tmp_path / "db"),
            "model_name": "some/model",
        }
    )
    assert isinstance(config, Config)
    assert config.roots == [other.resolve(), (tmp_path / "third").resolve()]
    assert config.db_path.local == (tmp_path / "db").resolve()
    assert config.index.MODEL_NAME == "some/model"


def test_db_path_defaults_under_the_first_root(env: dict) -> None:
    config = load_config({})
    assert isinstance(config, Config)
    assert config.db_path.local == Path(env["BASE_DIR"]).resolve() / ".minirag" / "lancedb"


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("BASE_DIRS", "{not json", "BASE_DIRS"),
        ("MAX_FILE_SIZE", "-3", "MAX_FILE_SIZE"),
        ("RAG_HYBRID_WEIGHT", "2", "RAG_HYBRID_WEIGHT"),
    ],
)
def test_a_bad_value_is_held_not_raised(
    env: dict, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    config = load_config({})
    assert isinstance(config, ConfigProblem) and named in config.error
    assert config.version == __version__


def test_instructions_carry_the_policy_and_fit_the_budget() -> None:
    assert 1500 <= len(POLICY) <= BUDGET - 352
    for phrase in ("query_documents", "parents", "displayPath", "Sources", "status", "data"):
        assert phrase in POLICY


def test_a_350_character_append_fits_whole() -> None:
    extra = ("When a question names a form code such as QP-7.2, search first. " * 6)[:350]
    text = build_instructions(extra)
    assert len(text) <= BUDGET
    assert text.endswith(extra.strip())
    assert text.startswith(POLICY)


def test_an_over_long_append_is_cut_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    text = build_instructions("word " * 400)
    assert len(text) <= BUDGET
    assert text.startswith(POLICY)
    assert "RAG_INSTRUCTIONS_APPEND" in caplog.text
