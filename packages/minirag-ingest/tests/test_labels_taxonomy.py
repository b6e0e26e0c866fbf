"""classify.toml parsing: every error names the key at fault, and the loader follows edits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minirag_ingest.labels.taxonomy import (
    DEFAULT_QUESTION,
    TaxonomyError,
    TaxonomyLoader,
    parse_taxonomy,
    taxonomy_path,
)

MODEL = """
[model]
path = "~/models/choice.gguf"
temperature = 2.07
"""

PINNED = """
[model]
repo = "someone/choice-GGUF"
file = "choice-Q8_0.gguf"
revision = "71c1c57e523219124f7be9c486d475d19891185f"
sha256 = "a0d2974e04541b79e167d8acabfb7a7e4b4f93f3b47ac4a006d196d240f68177"
temperature = 2.07
"""

EXAMPLE = (
    PINNED
    + """
uncertain_below = 0.6
file_name_label = "Имя файла"

[facets.project]
default = "main"
values.main = { description = "The main product." }
values.pilots = { description = "Pilot projects.", paths = ["pilots", "archive/pilots/"] }

[facets.type]
question = "What kind of document is this? Judge by its form."
override_at = 0.9
within = ["work"]
values.minutes = { description = "Minutes." }
values.transcript = { description = "Transcript.", paths = ["work/recordings"] }
"""
)


def error_of(text: str) -> str:
    with pytest.raises(TaxonomyError) as caught:
        parse_taxonomy(text)
    return str(caught.value)


def test_full_example_parses():
    taxonomy = parse_taxonomy(EXAMPLE)
    assert [f.name for f in taxonomy.facets] == ["project", "type"]
    project, kind = taxonomy.facets
    assert project.default == "main" and not project.needs_model
    assert project.values[1].paths == ("pilots", "archive/pilots")
    assert kind.override_at == 0.9 and kind.needs_model and kind.within == ("work",)
    assert kind.value_ids == ("minutes", "transcript")
    model = taxonomy.model
    assert model is not None and model.uncertain_below == 0.6
    assert model.file_name_label == "Имя файла"
    assert model.download_url_path.startswith("someone/choice-GGUF/resolve/71c1c57e")
    assert taxonomy.filter_vocabulary() == {
        "project": ["main", "pilots"],
        "type": ["minutes", "transcript"],
    }


def test_defaults():
    taxonomy = parse_taxonomy(MODEL + '[facets.type]\nvalues.a = { description = "A." }\n')
    facet = taxonomy.facets[0]
    assert facet.question == DEFAULT_QUESTION == "What kind of document is this?"
    assert taxonomy.model is not None
    assert taxonomy.model.uncertain_below == 0.7
    assert taxonomy.model.file_name_label == "File name"
    assert taxonomy.model.local_path == Path("~/models/choice.gguf").expanduser()


def test_path_and_default_only_facets_need_no_model():
    text = """
[facets.project]
default = "main"
values.main = { description = "Main." }
values.pilots = { description = "Pilots.", paths = ["pilots"] }
"""
    taxonomy = parse_taxonomy(text)
    assert taxonomy.model is None and not taxonomy.needs_model


def test_unknown_top_level_table_is_named():
    message = error_of(MODEL + "[labels]\nx = 1\n")
    assert "'labels'" in message and "[model]" in message


def test_unknown_facet_key_is_named():
    message = error_of(MODEL + '[facets.type]\nqestion = "?"\nvalues.a = { description = "A." }\n')
    assert "facets.type.qestion" in message


def test_unknown_value_key_is_named():
    message = error_of(MODEL + '[facets.type]\nvalues.a = { description = "A.", path = ["x"] }\n')
    assert "facets.type.values.a.path" in message


def test_unknown_model_key_is_named():
    message = error_of(MODEL + 'temprature = 2\n[facets.t]\nvalues.a = { description = "A." }\n')
    assert "model.temprature" in message


def test_bad_facet_slug():
    message = error_of(MODEL + '[facets.Type]\nvalues.a = { description = "A." }\n')
    assert "'Type'" in message and "facets.Type" in message and "slug" in message


def test_bad_value_slug():
    message = error_of(MODEL + '[facets.type]\nvalues."Big Report" = { description = "A." }\n')
    assert "facets.type.values.Big Report" in message and "slug" in message


def test_empty_description():
    message = error_of(MODEL + '[facets.type]\nvalues.a = { description = "  " }\n')
    assert "facets.type.values.a.description" in message


def test_missing_description():
    message = error_of(MODEL + '[facets.type]\nvalues.a = { paths = ["x"] }\n')
    assert "facets.type.values.a.description" in message and "required" in message


def test_facet_without_values():
    message = error_of(MODEL + '[facets.type]\nquestion = "?"\n')
    assert "facets.type.values" in message


@pytest.mark.parametrize("value", ["0", "0.0", "1.5", "-0.2"])
def test_override_at_outside_zero_one(value: str):
    text = MODEL + f'[facets.type]\noverride_at = {value}\nvalues.a = {{ description = "A." }}\n'
    assert "facets.type.override_at" in error_of(text)


def test_override_at_one_is_allowed():
    text = MODEL + '[facets.type]\noverride_at = 1\nvalues.a = { description = "A." }\n'
    assert parse_taxonomy(text).facets[0].override_at == 1.0


def many_values(count: int) -> str:
    return "".join(f'values.v{i} = {{ description = "Value {i}." }}\n' for i in range(count))


def test_seventeen_values_for_a_model_facet():
    message = error_of(MODEL + "[facets.type]\n" + many_values(17))
    assert "facets.type.values" in message and "16" in message


def test_sixteen_values_for_a_model_facet_are_fine():
    assert len(parse_taxonomy(MODEL + "[facets.type]\n" + many_values(16)).facets[0].values) == 16


def test_many_values_fine_without_the_model():
    text = '[facets.project]\ndefault = "v0"\n' + many_values(30)
    assert len(parse_taxonomy(text).facets[0].values) == 30


def test_many_values_with_override_at_need_the_model_limit():
    text = MODEL + '[facets.project]\ndefault = "v0"\noverride_at = 0.9\n' + many_values(17)
    assert "facets.project.values" in error_of(text)


def test_missing_model_table():
    message = error_of('[facets.type]\nvalues.a = { description = "A." }\n')
    assert "[model]" in message and "'type'" in message


def test_missing_model_table_with_override_at():
    text = '[facets.p]\ndefault = "a"\noverride_at = 0.9\nvalues.a = { description = "A." }\n'
    assert "[model]" in error_of(text)


def test_path_and_repo_both_set():
    text = PINNED.replace("[model]", '[model]\npath = "/m.gguf"')
    message = error_of(text + '[facets.t]\nvalues.a = { description = "A." }\n')
    assert "model.path" in message and "model.repo" in message


def test_pinned_download_needs_all_four():
    text = PINNED.replace(
        'sha256 = "a0d2974e04541b79e167d8acabfb7a7e4b4f93f3b47ac4a006d196d240f68177"\n', ""
    )
    message = error_of(text + '[facets.t]\nvalues.a = { description = "A." }\n')
    assert "model.sha256" in message


def test_model_needs_a_source():
    message = error_of('[model]\ntemperature = 2\n[facets.t]\nvalues.a = { description = "A." }\n')
    assert "model.path" in message or "path" in message


def test_temperature_required_and_positive():
    facet = '[facets.t]\nvalues.a = { description = "A." }\n'
    assert "model.temperature" in error_of('[model]\npath = "/m.gguf"\n' + facet)
    message = error_of('[model]\npath = "/m.gguf"\ntemperature = 0\n' + facet)
    assert "model.temperature" in message and "greater than 0" in message


@pytest.mark.parametrize("value", ["0", "1", "1.2"])
def test_uncertain_below_in_open_interval(value: str):
    text = MODEL + f'uncertain_below = {value}\n[facets.t]\nvalues.a = {{ description = "A." }}\n'
    assert "model.uncertain_below" in error_of(text)


def test_default_must_be_a_value():
    message = error_of('[facets.p]\ndefault = "zzz"\nvalues.a = { description = "A." }\n')
    assert "facets.p.default" in message and "'zzz'" in message


def test_bad_sha256():
    text = PINNED.replace("a0d2974e", "nothex!!")
    message = error_of(text + '[facets.t]\nvalues.a = { description = "A." }\n')
    assert "model.sha256" in message


def test_absolute_or_parent_folder_rules():
    base = '[facets.p]\ndefault = "a"\n'
    absolute = error_of(base + 'values.a = { description = "A.", paths = ["/etc"] }\n')
    assert "facets.p.values.a.paths" in absolute
    parent = error_of(base + 'within = ["../x"]\nvalues.a = { description = "A." }\n')
    assert "facets.p.within" in parent


def test_same_folder_for_two_values():
    text = """
[facets.p]
default = "a"
values.a = { description = "A.", paths = ["x"] }
values.b = { description = "B.", paths = ["x/"] }
"""
    assert "facets.p.values.b.paths" in error_of(text)


def test_wrong_type_is_named():
    message = error_of(MODEL + '[facets.t]\nwithin = "work"\nvalues.a = { description = "A." }\n')
    assert "facets.t.within" in message


def test_invalid_toml():
    assert "not valid TOML" in error_of("[facets.t\n")


def test_no_facets():
    assert "facet" in error_of(MODEL)


def test_fingerprint_changes_with_content_only():
    one = parse_taxonomy(EXAMPLE)
    same = parse_taxonomy(EXAMPLE.replace("[facets.project]", "# a comment\n[facets.project]"))
    other = parse_taxonomy(EXAMPLE.replace("Minutes.", "Minutes of a meeting."))
    assert one.fingerprint() == same.fingerprint() != other.fingerprint()
    # A change to one facet leaves the other facet's fingerprint alone.
    assert one.facets[0].fingerprint(one.model) == other.facets[0].fingerprint(other.model)


def test_loader_follows_edits(tmp_path: Path):
    root = tmp_path / "docs"
    loader = TaxonomyLoader.for_root(root)
    assert loader.get() is None and not loader.present and loader.error is None
    path = taxonomy_path(root)
    path.parent.mkdir(parents=True)
    path.write_text('[facets.p]\ndefault = "a"\nvalues.a = { description = "A." }\n')
    first = loader.get()
    assert first is not None and first.facets[0].value_ids == ("a",)
    assert loader.get() is first  # unchanged file: not parsed again

    path.write_text('[facets.p]\ndefault = "a"\nvalues.a = { description = "A." }\nbogus = 1\n')
    os.utime(path, ns=(1, 1))
    assert "facets.p.bogus" in (loader.error or "")
    with pytest.raises(TaxonomyError, match=r"facets\.p\.bogus"):
        loader.get()

    path.write_text('[facets.p]\ndefault = "b"\nvalues.b = { description = "B." }\n')
    os.utime(path, ns=(2, 2))
    again = loader.get()
    assert again is not None and again.facets[0].value_ids == ("b",)
    assert loader.error is None

    path.unlink()
    assert loader.get() is None and not loader.present
