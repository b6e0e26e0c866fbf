"""The plug-in seam: one discovery for OCR engines and choice models, the missing-extra message,
and fakes set in place of what is installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from minirag_ingest.extras import plugins
from minirag_ingest.extras.install import install_hint
from minirag_ingest.extras.plugins import CLASSIFY, OCR, Found, find, missing_extra, registered

pytestmark = [pytest.mark.ocr, pytest.mark.classify]


class FakeEntryPoint:
    def __init__(self, name: str, target: object = None, error: Exception | None = None):
        self.name = name
        self._target = target
        self._error = error

    def load(self) -> object:
        if self._error is not None:
            raise self._error
        return self._target


class OcrPlugin:
    name = "fake-ocr"

    def create_engine(self, cache_dir: Path) -> Any:
        raise NotImplementedError


class OtherOcrPlugin(OcrPlugin):
    name = "other-ocr"


class ChoicePlugin:
    name = "fake-choice"

    def probe(self, spec: Any, cache_dir: Path) -> str | None:
        return None

    def load(self, spec: Any, cache_dir: Path) -> Any:
        raise NotImplementedError


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Pretend these entry points are installed: ``installed(OCR, point, ...)``."""
    points: dict[str, list[FakeEntryPoint]] = {}

    def install(kind: plugins.Kind, *found: FakeEntryPoint) -> None:
        points[kind.group] = list(found)
        plugins.forget()

    monkeypatch.setattr(plugins, "entry_points", lambda *, group: list(points.get(group, [])))
    yield install
    plugins.forget()


def test_nothing_installed_names_the_extra_and_its_command(installed) -> None:
    installed(OCR)
    installed(CLASSIFY)
    for kind in (OCR, CLASSIFY):
        found = find(kind)
        assert found.plugin is None and found.name is None
        assert found.missing == missing_extra(kind)
        assert (
            f"[{kind.extra}] extra" in found.missing and install_hint(kind.extra) in found.missing
        )
    assert missing_extra(OCR).startswith("Scanned PDFs and image files need the [ocr] extra: ")


def test_the_preferred_name_wins_whatever_the_install_order(installed) -> None:
    installed(OCR, FakeEntryPoint("another", OtherOcrPlugin), FakeEntryPoint("rapidocr", OcrPlugin))
    found = find(OCR)
    assert found.name == "rapidocr" and isinstance(found.plugin, OcrPlugin)
    installed(CLASSIFY, FakeEntryPoint("b", ChoicePlugin), FakeEntryPoint("a", ChoicePlugin))
    assert find(CLASSIFY).name == "a"  # no preferred name: by name


def test_a_broken_install_is_a_reason_and_the_next_one_is_tried(installed) -> None:
    broken = FakeEntryPoint("rapidocr", error=ImportError("No module named 'rapidocr'"))
    installed(OCR, broken)
    found = find(OCR)
    assert found.plugin is None
    assert "'rapidocr' failed to load" in (found.missing or "")
    assert "No module named 'rapidocr'" in (found.missing or "")
    installed(OCR, broken, FakeEntryPoint("zz", OcrPlugin))
    assert find(OCR).name == "zz"


def test_a_plugin_that_breaks_the_contract_is_not_offered(installed) -> None:
    installed(CLASSIFY, FakeEntryPoint("odd", OcrPlugin))  # an OCR plug-in in the wrong group
    found = find(CLASSIFY)
    assert found.plugin is None and "is not a ClassifyPlugin" in (found.missing or "")


def test_discovery_happens_once_until_forgotten(installed, monkeypatch) -> None:
    calls: list[str] = []

    def counting(*, group: str) -> list[FakeEntryPoint]:
        calls.append(group)
        return [FakeEntryPoint("rapidocr", OcrPlugin)] if group == OCR.group else []

    monkeypatch.setattr(plugins, "entry_points", counting)
    plugins.forget()
    first, again = find(OCR), find(OCR)
    assert first.plugin is again.plugin and calls == [OCR.group]
    plugins.forget()
    find(OCR)
    assert calls == [OCR.group, OCR.group]


def test_a_registered_fake_wins_and_goes_away(installed) -> None:
    installed(CLASSIFY, FakeEntryPoint("llama", ChoicePlugin))
    fake = ChoicePlugin()
    with registered(CLASSIFY, fake):
        assert find(CLASSIFY) == Found(fake, "fake-choice")
        with registered(CLASSIFY, None):  # as if the extra were not installed
            assert find(CLASSIFY).missing == missing_extra(CLASSIFY)
        assert find(CLASSIFY).plugin is fake
    assert find(CLASSIFY).name == "llama"


def test_ingest_never_imports_a_plugin_package() -> None:
    source = Path(plugins.__file__).parent
    for module in source.rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        for package in ("minirag_ocr", "minirag_classify"):
            assert f"import {package}" not in text, module
            assert f"from {package}" not in text, module
