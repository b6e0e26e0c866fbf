"""Errors of the object store, as a user sees them: one line saying what failed, without the
Rust debug dump, source positions or the retry settings the layers below print. The texts are
the ones LanceDB and obstore raised with the S3 endpoint cut (tests/test_object_store_outage*)."""

from __future__ import annotations

import logging

import pytest

from minirag_index import StoreUnavailableError
from minirag_index.errors import brief, looks_like_store_error

CONNECT = (
    'Invalid input, Failed to connect to namespace: IO { source: Generic { store: "S3", '
    "source: ListRequest { source: RetryError(RetryErrorImpl { method: GET, uri: "
    "Some(http://127.0.0.1:46441/team-0?list-type=2&prefix=idx%2F__manifest%2F_versions%2F), "
    "retries: 3, max_retries: 3, elapsed: 404.489054ms, retry_timeout: 180s, inner: "
    "Http(HttpError { kind: Request, source: reqwest::Error { kind: Request, source: "
    "hyper_util::client::legacy::Error(SendRequest, hyper::Error(IncompleteMessage)) } }) }) } }"
    ', location: Location { file: "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/'
    'lance-io-13.0.0/src/object_store.rs", line: 1506, column: 92 }, backtrace: MaybeBacktrace }'
)
READ = (
    "lance error: LanceError(IO): Generic N/A error: LanceError(IO): Generic S3 error: Error "
    "performing GET http://127.0.0.1:39247/team-0/idx/chunks.lance/data/00001.lance in "
    "527.245965ms, after 3 retries, max_retries: 3, retry_timeout: 180s  - HTTP error: error "
    "sending request, /rustc/2d8144b7880597b6e6d3dfd63a9a9efae3f533d3/library/core/src/"
    "result.rs:1896:29, /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-io-"
    "13.0.0/src/object_store/providers/aws.rs:12:5"
)
LEASE = (
    "Generic S3 error: Error performing PUT http://127.0.0.1:36525/team-0/team/.sync-lease.json "
    "in 1.557186556s, after 10 retries, max_retries: 10, retry_timeout: 180s  - HTTP error: "
    'error sending request\n\nDebug source:\nGeneric {\n    store: "S3",\n    source: '
    "RetryError(\n        RetryErrorImpl {\n            method: PUT,\n" + "        }\n" * 30
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            CONNECT,
            "GET http://127.0.0.1:46441/team-0?list-type=2&prefix=idx%2F__manifest%2F_versions%2F"
            " failed after 3 retries (IncompleteMessage)",
        ),
        (
            READ,
            "Error performing GET http://127.0.0.1:39247/team-0/idx/chunks.lance/data/00001.lance"
            " in 527.245965ms, after 3 retries - HTTP error: error sending request",
        ),
        (
            LEASE,
            "Error performing PUT http://127.0.0.1:36525/team-0/team/.sync-lease.json in "
            "1.557186556s, after 10 retries - HTTP error: error sending request",
        ),
    ],
)
def test_an_object_store_error_is_one_readable_line(text: str, expected: str) -> None:
    assert looks_like_store_error(RuntimeError(text))
    assert brief(RuntimeError(text)) == expected


def test_the_outage_names_the_store_and_keeps_the_whole_text_for_debug_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="minirag_index.errors")
    error = StoreUnavailableError("s3://team-0/idx", ValueError(LEASE))
    assert str(error) == (
        "the index store s3://team-0/idx could not be reached: Error performing PUT "
        "http://127.0.0.1:36525/team-0/team/.sync-lease.json in 1.557186556s, after 10 retries"
        " - HTTP error: error sending request"
    )
    assert "Debug source" in caplog.text  # the dump only at DEBUG level


def test_other_errors_are_not_taken_for_an_outage() -> None:
    for text in ("the index was built with another model", "No such file: notes.md", ""):
        assert not looks_like_store_error(ValueError(text))
