"""Old notebook formats are read (nbformat's own upgrade), and a file that converts to no text
is a failure with a reason, never a document holding only its title."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.conversion.no_text import holds_text
from minirag_ingest.sync.run import sync

FILES = Path(__file__).parent / "files"


def test_a_version_3_notebook_is_read_and_found(pipeline, docs):
    path = docs / "test3.ipynb"
    shutil.copy(FILES / "nbformat" / "test3.ipynb", path)
    pipeline.ingest_file(path)
    text = pipeline.index.read_document(str(path))
    assert "# nbconvert latex test" in text
    assert "Lorem ipsum" in text
    assert "```python" in text  # its code cells come through as code
    found = pipeline.index.find_mentions(["lorem ipsum"])
    assert [d.source for d in found.documents] == [str(path)]


def test_a_version_2_notebook_is_read(docs):
    path = docs / "test2.ipynb"
    shutil.copy(FILES / "nbformat" / "test2.ipynb", path)
    assert json.loads(path.read_bytes())["nbformat"] == 2
    markdown = convert_file(path, max_file_size=1 << 30).markdown
    assert markdown.startswith("# An introduction to the Jupyter notebook")
    assert markdown.count("```python") >= 5


def test_a_version_3_notebook_without_metadata_is_read_from_its_cells(docs):
    # nbformat's own upgrade refuses this file ("missing a key: metadata")
    path = docs / "reactor.ipynb"
    heading = {"cell_type": "heading", "level": 1, "metadata": {}, "source": "Reactor log"}
    prose = {"cell_type": "markdown", "metadata": {}, "source": "Coolant pressure readings."}
    code = {
        "cell_type": "code",
        "collapsed": False,
        "input": "pressure = read_gauge('P-101')",
        "language": "python",
        "metadata": {},
        "outputs": [],
    }
    notebook = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "worksheets": [{"cells": [heading, prose, code], "metadata": {}}],
    }
    path.write_text(json.dumps(notebook))
    markdown = convert_file(path, max_file_size=1 << 30).markdown
    assert markdown.startswith("# Reactor log")
    assert "Coolant pressure readings." in markdown
    assert "```python\npressure = read_gauge('P-101')\n```" in markdown


def test_a_notebook_nbformat_cannot_read_fails_with_its_reason(docs):
    path = docs / "broken.ipynb"
    path.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}))
    with pytest.raises(ConversionError, match="nbformat cannot upgrade"):
        convert_file(path, max_file_size=1 << 30)


@pytest.mark.parametrize(
    ("folder", "name"),
    [("nbformat", "test3_no_min_version.ipynb"), ("python-docx", "doc-default.docx")],
)
def test_a_file_that_converts_to_no_text_is_a_failure_not_a_title(pipeline, docs, folder, name):
    path = docs / name
    shutil.copy(FILES / folder / name, path)
    with pytest.raises(ConversionError, match="converted to no text"):
        pipeline.ingest_file(path)
    report = sync(pipeline)
    assert report.failed == 1 and report.ingested == 0
    assert report.errors[0]["path"] == str(path)
    assert report.errors[0]["reason"].startswith("converted to no text")
    assert pipeline.index.read_document(str(path)) is None


def test_empty_and_markup_only_content_is_refused(pipeline, docs):
    (docs / "Budget plan 2027.md").write_text("")
    with pytest.raises(ConversionError, match="converted to no text"):
        pipeline.ingest_file(docs / "Budget plan 2027.md")
    with pytest.raises(ConversionError, match="converted to no text"):
        pipeline.ingest_data("notes/empty", "<html><body><p> </p></body></html>", "html")


def test_what_counts_as_text():
    assert not holds_text("")
    assert not holds_text("<!-- Slide number: 1 -->\n\n<!-- Slide number: 2 -->")
    assert not holds_text("|  |  |\n| --- | --- |\n|  |  |")
    assert not holds_text("```python\n\n```\n\n# \n\n---")
    assert holds_text("# Report")
    assert holds_text("| 42 |")
    assert holds_text("```\nx = 1\n```")
    assert holds_text("Привет")
