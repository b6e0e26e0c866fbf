"""A real S3-compatible server on loopback for the object-store tests: moto's server mode.

>>> with s3_server() as s3:                      # doctest: +SKIP
...     uri = s3.new_bucket("team-index") + "/docs-index"
...     settings = IndexSettings(DB_PATH=uri, **s3.index_settings(), ...)

Every request goes to 127.0.0.1 on a port the OS picks; nothing leaves the machine. The keys are
made up (moto accepts any); :data:`SECRET` is distinctive so a test can check it is never shown.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

ACCESS_KEY = "test-access-key-id"
SECRET = "test-secret-never-shown-0f9e8d7c"
REGION = "us-east-1"
_names = itertools.count()


def missing() -> str | None:
    """Why the object-store tests cannot run here, or None when they can."""
    if importlib.util.find_spec("obstore") is None:
        return "needs the [s3] extra (minirag-ingest[s3]: obstore is not installed)"
    if importlib.util.find_spec("moto") is None:
        return "needs moto for a loopback S3 server: uv sync --group s3"
    return None


@dataclass(frozen=True)
class S3Server:
    endpoint: str

    def env(self) -> dict[str, str]:
        """The standard AWS variables pointing at this server."""
        return {
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": REGION,
            "AWS_ENDPOINT_URL": self.endpoint,
        }

    def index_settings(self) -> dict[str, Any]:
        """The same, as IndexSettings keyword arguments."""
        return dict(self.env())

    def client(self) -> Any:
        import boto3  # moto depends on it

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET,
            region_name=REGION,
        )

    def new_bucket(self, stem: str = "minirag-test") -> str:
        """A new, empty bucket; its ``s3://`` URI."""
        name = f"{stem}-{next(_names)}"
        self.client().create_bucket(Bucket=name)
        return f"s3://{name}"

    def keys(self, uri: str) -> list[str]:
        """Every object key under ``uri`` (``s3://bucket/prefix``)."""
        bucket, _, prefix = uri.removeprefix("s3://").partition("/")
        pages = (
            self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        )
        return [item["Key"] for page in pages for item in page.get("Contents", [])]


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """A moto S3 server on 127.0.0.1 for the duration of the block."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield S3Server(f"http://{host}:{port}")
    finally:
        server.stop()
