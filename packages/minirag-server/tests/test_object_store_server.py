"""The server over an index on object storage (a moto S3 server on loopback): status names the
store and never a secret; an endpoint that would send the keys over plain http is refused."""

from __future__ import annotations

import asyncio
import json

import pytest
from fastmcp import Client

from minirag_mcp.config import Config, load_config
from minirag_mcp.server import create_app
from testsupport.mcp import call, synced
from testsupport.object_store import SECRET, S3Server

pytestmark = pytest.mark.s3


@pytest.fixture
def s3_env(env: dict, s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> str:
    uri = s3_server.new_bucket() + "/team"
    for name, value in {**s3_server.env(), "DB_PATH": uri}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("READ_CONSISTENCY_SECONDS", "0.5")
    return uri


def test_status_names_the_store_and_never_a_secret(s3_env: str) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            finished = await synced(client)
            assert finished["state"] == "succeeded", finished
            status = await call(client, "status")
            assert (status["store"], status["dbPath"]) == ("s3", s3_env)
            assert status["documents"] == 3
            assert SECRET not in json.dumps(status)
            found = await call(client, "find_mentions", {"terms": ["tomatoes"]})
            assert SECRET not in json.dumps(found)

    asyncio.run(go())


def test_a_plain_http_endpoint_off_this_machine_is_refused_naming_the_switch(
    s3_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://minio.example.net:9000")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            status = await call(client, "status")
            assert "AWS_ENDPOINT_URL" in status["configError"]
            assert "S3_ALLOW_HTTP=1" in status["configError"]
            assert SECRET not in json.dumps(status)

    asyncio.run(go())
    monkeypatch.setenv("S3_ALLOW_HTTP", "1")  # a trusted network, said explicitly
    config = load_config({})
    assert isinstance(config, Config), config
    assert config.index.store_access().storage_options["allow_http"] == "true"
