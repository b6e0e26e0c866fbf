"""The model hub probe: any HTTP answer counts as reachable, a refused or silent address does
not, and the reason names the address (loopback servers stand in for the hub)."""

from __future__ import annotations

import socket

import pytest

from minirag_index.embedding import hub
from testsupport.loopback import file_server


def _endpoint(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", url)


def test_a_hub_that_answers_at_all_is_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    with file_server() as served:  # it answers HEAD with an error status: still an answer
        _endpoint(monkeypatch, served.url)
        assert hub.hub_unreachable("Qdrant/some-model") is None


def test_a_refusing_or_silent_hub_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        _endpoint(monkeypatch, url)
        reason = hub.hub_unreachable("Qdrant/some-model", timeout=0.5)
    assert reason is not None and reason.startswith(f"{url} did not answer within 0.5 s")
    # The port is closed now: refused.
    reason = hub.hub_unreachable("Qdrant/some-model", timeout=0.5)
    assert reason is not None and reason.startswith(f"{url} did not answer")


def test_the_default_model_is_downloaded_from_the_hub_only() -> None:
    source = hub.hub_source("sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2")
    assert source is not None and source[1] is False  # no URL to fall back on
    assert hub.hub_source("no/such-model") is None
