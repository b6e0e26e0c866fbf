"""Where an index lives and how it is reached: folders and object-store URIs, the AWS
variables, plain http only where it cannot leak, and no secret in anything shown."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from minirag_index.settings import ConfigError, IndexSettings
from minirag_index.storage.location import RETRY_OPTIONS, IndexLocation

SECRET = "very-secret-key-4f3e2d1c"


def settings(**values: object) -> IndexSettings:
    return IndexSettings(AWS_ACCESS_KEY_ID="key-id", AWS_SECRET_ACCESS_KEY=SECRET, **values)


def test_a_folder_and_a_uri_are_told_apart_once(tmp_path: Path) -> None:
    folder = IndexLocation.parse(tmp_path / "db")
    assert (folder.kind, folder.local, folder.beside("x")) == (
        "local",
        tmp_path / "db",
        str(tmp_path / "db" / "x"),
    )
    for uri, kind in [("s3://b/p/q/", "s3"), ("GS://b/p", "gs"), ("az://container", "az")]:
        where = IndexLocation.parse(uri)
        assert where.kind == kind and where.local is None and not str(where).endswith("/")


def test_s3_gets_the_aws_variables_and_a_loopback_endpoint_may_be_http() -> None:
    access = settings(
        DB_PATH="s3://bucket/index",
        AWS_REGION="eu-west-1",
        AWS_ENDPOINT_URL="http://127.0.0.1:9000/",
    ).store_access()
    assert dict(access.storage_options) == {
        "aws_access_key_id": "key-id",
        "aws_secret_access_key": SECRET,
        "aws_region": "eu-west-1",
        "aws_endpoint": "http://127.0.0.1:9000",
        "allow_http": "true",
        **RETRY_OPTIONS,  # a store that stops answering is given up on in bounded time
    }
    assert access.read_consistency == timedelta(seconds=5)  # an object store's default
    assert SECRET not in repr(access) and SECRET not in repr(settings(DB_PATH="s3://b"))


def test_plain_http_elsewhere_needs_the_explicit_switch() -> None:
    remote = {"DB_PATH": "s3://bucket/index", "AWS_ENDPOINT_URL": "http://minio.lan:9000"}
    with pytest.raises(ConfigError, match="S3_ALLOW_HTTP=1") as refused:
        settings(**remote).store_access()
    assert refused.value.variable == "AWS_ENDPOINT_URL" and SECRET not in str(refused.value)
    assert settings(**remote, S3_ALLOW_HTTP=True).store_access().storage_options["allow_http"]
    https = settings(DB_PATH="s3://b", AWS_ENDPOINT_URL="https://minio.lan").store_access()
    assert "allow_http" not in https.storage_options


def test_a_folder_reads_fresh_and_the_interval_is_a_setting(tmp_path: Path) -> None:
    assert settings(DB_PATH=tmp_path).store_access().read_consistency == timedelta(0)
    elsewhere = settings(DB_PATH=tmp_path, AWS_ENDPOINT_URL="http://minio.lan:9000")
    assert elsewhere.store_access().storage_options == {}  # AWS variables are for s3:// only
    chosen = settings(DB_PATH="s3://b", READ_CONSISTENCY_SECONDS=1.5).store_access()
    assert chosen.read_consistency == timedelta(seconds=1.5)
