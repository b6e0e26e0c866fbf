"""The real choice model on a small GGUF (gemma-3-270m): the mechanics, not the answers.

A 270M model is no judge of document kinds; what is checked is that the probabilities come from
the option letters' logits, sum to 1 after the temperature, repeat exactly, and that a job
releases the model.
"""

from __future__ import annotations

import gc
import math
import weakref
from pathlib import Path

import pytest

from minirag_classify.model import LETTERS, LlamaChoiceModel, calibrated, user_message
from minirag_classify.plugin import LlamaPlugin
from minirag_ingest.extras import plugins
from minirag_ingest.labels.resolve import ModelSession, model_state, resolve_labels
from minirag_ingest.labels.taxonomy import parse_taxonomy

pytestmark = pytest.mark.slow

OPTIONS = [
    ("minutes", "Minutes. Date, participants, decisions and actions."),
    ("mail", "Mail. A message with sender, recipients and a subject line."),
    ("report", "Report. A status document with sections and findings."),
]
MAIL = "From: ann@example.com\nTo: bob@example.com\nSubject: Lunch\n\nHi Bob, lunch at noon?"
QUESTION = "What kind of document is this? Judge by its form."


@pytest.fixture(scope="module")
def model(gguf_path: Path):
    loaded = LlamaChoiceModel(gguf_path, temperature=2.07)
    yield loaded
    loaded.close()


def test_calibrated_softmax():
    p = calibrated([1.0, 2.0, -1.0], 2.0)
    assert sum(p) == pytest.approx(1.0)
    assert p[1] / p[0] == pytest.approx(math.exp(0.5))
    assert calibrated([-100.0, -99.0], 1.5) == pytest.approx(calibrated([0.0, 1.0], 1.5))
    with pytest.raises(ValueError):
        calibrated([1.0, 2.0], 0.0)


def test_prompt_letters_options_and_file_name():
    text = user_message(QUESTION, OPTIONS, "Body", "a.eml", "Имя файла")
    assert '"letter": "A", "description": "minutes: Minutes.' in text
    assert '"letter": "C"' in text and "Имя файла: a.eml" in text
    assert QUESTION in text


def test_probabilities_sum_to_one_and_repeat(model: LlamaChoiceModel):
    first = model.ask(QUESTION, OPTIONS, MAIL, "lunch.eml")
    assert list(first) == ["minutes", "mail", "report"]
    assert sum(first.values()) == pytest.approx(1.0, abs=1e-9)
    assert all(0 < p < 1 for p in first.values())
    second = model.ask(QUESTION, OPTIONS, MAIL, "lunch.eml")
    assert second == first  # deterministic: same prompt, same numbers


def test_temperature_scales_the_letter_logits(model: LlamaChoiceModel):
    at_two = model.ask(QUESTION, OPTIONS, MAIL, "lunch.eml")
    model.temperature = 1.0
    try:
        at_one = model.ask(QUESTION, OPTIONS, MAIL, "lunch.eml")
    finally:
        model.temperature = 2.07
    # p ∝ exp(logit / T): T · log(p_i / p_j) is the logit gap whatever T is
    gap_one = 1.0 * math.log(at_one["minutes"] / at_one["mail"])
    gap_two = 2.07 * math.log(at_two["minutes"] / at_two["mail"])
    assert gap_one == pytest.approx(gap_two, rel=1e-6, abs=1e-9)


def test_sixteen_options(model: LlamaChoiceModel):
    options = [(f"v{i}", f"Value {i}.") for i in range(len(LETTERS))]
    answer = model.ask(QUESTION, options, MAIL, "lunch.eml")
    assert list(answer) == [f"v{i}" for i in range(16)]
    assert sum(answer.values()) == pytest.approx(1.0)


def test_a_document_longer_than_the_context_is_cut(gguf_path: Path):
    small = LlamaChoiceModel(gguf_path, temperature=2.07, n_ctx=256)
    try:
        answer = small.ask(QUESTION, OPTIONS, "word " * 400, "long.md")
    finally:
        small.close()
    assert sum(answer.values()) == pytest.approx(1.0)


def test_entry_point_finds_the_plugin(llama_cpp_available: None):
    plugins.forget()
    found = plugins.find(plugins.CLASSIFY)
    assert found.missing is None and isinstance(found.plugin, LlamaPlugin)


def test_a_job_loads_on_demand_and_releases(
    gguf_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    taxonomy = parse_taxonomy(
        f"""
[model]
path = "{gguf_path}"
temperature = 2.07

[facets.type]
question = "{QUESTION}"
values.minutes = {{ description = "Minutes. Date, participants, decisions and actions." }}
values.mail = {{ description = "Mail. A message with sender, recipients and a subject." }}
"""
    )
    monkeypatch.setitem(plugins.REGISTERED, plugins.CLASSIFY.group, LlamaPlugin())
    assert model_state(taxonomy, tmp_path) == ("on demand", None)
    session = ModelSession(taxonomy.model, tmp_path)
    assert not session.loaded
    runs = []
    for _ in range(2):
        outcome = resolve_labels(
            taxonomy,
            rel_path="inbox/lunch.eml",
            markdown=MAIL,
            file_name="lunch.eml",
            session=session,
        )
        [facet] = outcome.facets
        assert facet.label is not None and facet.label.source == "model"
        assert facet.distribution is not None
        assert sum(facet.distribution.values()) == pytest.approx(1.0)
        runs.append(outcome.to_json())
    assert runs[0] == runs[1] and session.loads == 1
    assert model_state(taxonomy, tmp_path)[0] == "loaded"
    loaded = session._model
    assert isinstance(loaded, LlamaChoiceModel)
    llama_ref = weakref.ref(loaded._llm)
    del loaded
    session.close()
    gc.collect()
    assert not session.loaded and llama_ref() is None
    assert model_state(taxonomy, tmp_path) == ("on demand", None)
