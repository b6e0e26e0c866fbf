"""URL fetching safety. Every request here goes to a server the test starts on 127.0.0.1, or
nowhere at all: names are answered by a patched resolver, and blocked hosts are refused before
any connection is opened."""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from requests.adapters import HTTPAdapter

from minirag_ingest.web import fetch as urls
from minirag_ingest.web.fetch import (
    FetchError,
    HostGuard,
    RefusedHost,
    UnsupportedScheme,
    blocked_reason,
    check_scheme,
    fetch,
    guarded_session,
)

METADATA_URL = "http://169.254.169.254/latest/meta-data/"


class _Handler(BaseHTTPRequestHandler):
    hits: list[str]

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        path = self.path
        if path == "/page":
            self._reply(200, b"<html><h1>Hello</h1></html>", "text/html; charset=ISO-8859-1")
        elif path == "/plain":
            self._reply(200, b"plain text", "text/plain")
        elif path == "/to-metadata":
            self._redirect(METADATA_URL)
        elif path == "/to-file":
            self._redirect("file:///etc/passwd")
        elif path == "/to-page":
            self._redirect("/page")
        elif path.startswith("/chain/"):
            left = int(path.rsplit("/", 1)[1])
            if left:
                self._redirect(f"/chain/{left - 1}")
            else:
                self._reply(200, b"end of chain", "text/plain")
        elif path == "/big":
            self._reply(200, b"x" * 10_000, "text/plain")
        else:
            self._reply(404, b"missing", "text/plain")

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server:
    def __init__(self, base: str, hits: list[str]) -> None:
        self.base = base
        self.hits = hits

    def url(self, path: str) -> str:
        return self.base + path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    hits: list[str] = []
    handler = type("Handler", (_Handler,), {"hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", hits)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def loopback_is_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat 127.0.0.1 as a public address, so the test server can stand in for a public site;
    every other address keeps the real rules."""
    real = urls.blocked_reason

    def patched(address: urls.IPAddress) -> str | None:
        if address == ipaddress.ip_address("127.0.0.1"):
            return None
        return real(address)

    monkeypatch.setattr(urls, "blocked_reason", patched)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """URLs that reached the real transport, i.e. for which a connection was attempted."""
    calls: list[str] = []
    real_send = HTTPAdapter.send

    def recording(self: HTTPAdapter, request: requests.PreparedRequest, **kwargs: Any) -> Any:
        calls.append(request.url or "")
        return real_send(self, request, **kwargs)

    monkeypatch.setattr(HTTPAdapter, "send", recording)
    return calls


def fake_dns(
    monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str] | Exception]
) -> list[str]:
    """Answer the given names from ``answers``; any other name is a test bug."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in ("127.0.0.1", "::1"):
            return real(host, port, *args, **kwargs)
        asked.append(host)
        answer = answers[host]
        if isinstance(answer, Exception):
            raise answer
        result = []
        for address in answer:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port or 0, 0, 0) if ":" in address else (address, port or 0)
            result.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
        return result

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


@pytest.fixture
def no_io(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no I/O may happen")

    monkeypatch.setattr(socket, "getaddrinfo", forbidden)
    monkeypatch.setattr(socket, "create_connection", forbidden)
    monkeypatch.setattr(HTTPAdapter, "send", forbidden)


# --- scheme -------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://example.com/x", "https://example.com", "HTTPS://E.COM/"])
def test_http_and_https_pass(url: str) -> None:
    assert check_scheme(url) in {"http", "https"}


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "data:text/plain;base64,aGk=",
        "ftp://example.com/file.txt",
        "javascript:alert(1)",
        "gopher://example.com/",
        "example.com/page",
        "",
    ],
)
@pytest.mark.parametrize("allow_private", [False, True])
def test_other_schemes_are_refused_before_any_io(
    no_io: None, url: str, allow_private: bool
) -> None:
    with pytest.raises(UnsupportedScheme, match="Only http and https"):
        check_scheme(url)
    with pytest.raises(UnsupportedScheme):
        fetch(url, allow_private=allow_private)


# --- host classification ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "word"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("fc00::1", "private"),
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::ffff:169.254.169.254", "169.254.169.254"),
        ("2002:7f00:1::", "127.0.0.1"),  # 6to4 around loopback
        ("2002:a9fe:a9fe::", "169.254.169.254"),  # 6to4 around metadata
        ("64:ff9b::a00:1", ""),  # NAT64 around 10.0.0.1
        ("100.64.0.1", "not a publicly routable"),  # carrier-grade NAT
    ],
)
def test_blocked_addresses(address: str, word: str) -> None:
    reason = blocked_reason(ipaddress.ip_address(address))
    assert reason is not None
    assert word in reason


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "1.1.1.1"])
def test_public_addresses(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "::1", "169.254.169.254", "::ffff:127.0.0.1", "fe80::1%eth0", "10.0.0.1"]
)
def test_guard_refuses_literals_without_dns(no_io: None, host: str) -> None:
    with pytest.raises(RefusedHost) as caught:
        HostGuard(allow_private=False).check(host)
    assert str(caught.value).startswith(f"Refusing to fetch from host {host}: ")
    assert "ALLOW_PRIVATE_URLS" in str(caught.value)
    assert caught.value.host == host


def test_guard_passes_public_literals_without_dns(no_io: None) -> None:
    HostGuard(allow_private=False).check("8.8.8.8")
    HostGuard(allow_private=False).check("2606:4700::1111")


def test_guard_refuses_a_name_if_any_address_is_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dns(
        monkeypatch,
        {
            "mixed.test": ["93.184.216.34", "10.0.0.5"],
            "mapped.test": ["::ffff:127.0.0.1"],
            "public.test": ["93.184.216.34", "2606:4700::1111"],
        },
    )
    guard = HostGuard(allow_private=False)
    with pytest.raises(RefusedHost) as caught:
        guard.check("mixed.test", 80)
    assert str(caught.value).startswith("Refusing to fetch from host mixed.test: ")
    assert "10.0.0.5" in str(caught.value) and "private" in str(caught.value)
    with pytest.raises(RefusedHost, match=re.escape("127.0.0.1")):
        guard.check("mapped.test", 443)
    guard.check("public.test", 443)


def test_unresolvable_host_is_a_fetch_error_not_a_refusal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, {"nowhere.test": socket.gaierror(-2, "Name or service not known")})
    with pytest.raises(
        FetchError, match=re.escape("could not resolve host nowhere.test")
    ) as caught:
        fetch("http://nowhere.test/page", allow_private=False)
    assert not isinstance(caught.value, RefusedHost)


def test_allow_private_skips_the_host_check(no_io: None) -> None:
    guard = HostGuard(allow_private=True)
    guard.check("127.0.0.1")
    guard.check("169.254.169.254")
    guard.check("intranet.local")  # not even resolved


# --- fetching over loopback ---------------------------------------------------------------------


def test_fetch_a_page(server: Server) -> None:
    page = fetch(server.url("/page"), allow_private=True)
    assert page.url == server.url("/page")
    assert page.final_url == server.url("/page")
    assert page.content == b"<html><h1>Hello</h1></html>"
    assert page.content_type == "text/html"
    assert page.charset == "ISO-8859-1"
    plain = fetch(server.url("/plain"), allow_private=True)
    assert (plain.content_type, plain.charset) == ("text/plain", None)


def test_loopback_is_refused_by_default(server: Server, sent: list[str]) -> None:
    with pytest.raises(RefusedHost) as caught:
        fetch(server.url("/page"), allow_private=False)
    assert str(caught.value).startswith("Refusing to fetch from host 127.0.0.1: ")
    assert "loopback" in str(caught.value)
    assert caught.value.redirected_from is None
    assert sent == [] and server.hits == []


def test_redirect_to_metadata_is_refused_and_named(
    server: Server, loopback_is_public: None, sent: list[str]
) -> None:
    start = server.url("/to-metadata")
    with pytest.raises(RefusedHost) as caught:
        fetch(start, allow_private=False)
    message = str(caught.value)
    assert message.startswith("Refusing to fetch from host 169.254.169.254: ")
    assert "metadata" in message
    assert f"redirected there from {start}" in message
    assert f"it redirected to {METADATA_URL}" in message
    assert caught.value.redirected_from == start
    assert server.hits == ["/to-metadata"]  # the first hop really happened, over loopback
    assert sent == [start]  # and no connection was attempted to the metadata address


def test_the_transport_itself_guards_every_hop(
    server: Server, loopback_is_public: None, sent: list[str]
) -> None:
    """Even requests' own redirect handling cannot get past the guard: it sits in the adapter."""
    with (
        guarded_session(HostGuard(allow_private=False)) as session,
        pytest.raises(RefusedHost, match=re.escape("169.254.169.254")),
    ):
        session.get(server.url("/to-metadata"), timeout=5)
    assert sent == [server.url("/to-metadata")]


def test_allowed_redirects_are_followed(server: Server, loopback_is_public: None) -> None:
    page = fetch(server.url("/to-page"), allow_private=False)
    assert page.final_url == server.url("/page")
    assert page.content.startswith(b"<html>")


def test_allow_private_does_not_lift_the_scheme_check_on_redirects(server: Server) -> None:
    with pytest.raises(UnsupportedScheme, match="redirected to a non-http"):
        fetch(server.url("/to-file"), allow_private=True)


def test_five_redirects_are_followed(server: Server) -> None:
    page = fetch(server.url("/chain/5"), allow_private=True)
    assert page.content == b"end of chain"
    assert page.final_url == server.url("/chain/0")
    assert len(server.hits) == 6


def test_a_sixth_redirect_is_a_fetch_error(server: Server) -> None:
    with pytest.raises(FetchError, match="exceeded 5 redirects"):
        fetch(server.url("/chain/6"), allow_private=True)
    assert len(server.hits) == 6  # the sixth redirect was never followed


def test_http_errors_and_size_limit(server: Server) -> None:
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(server.url("/missing"), allow_private=True)
    with pytest.raises(FetchError, match="larger than"):
        fetch(server.url("/big"), allow_private=True, max_bytes=1000)
    assert len(fetch(server.url("/big"), allow_private=True, max_bytes=10_000).content) == 10_000


def test_connection_refused_is_a_fetch_error(server: Server) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError, match="could not fetch"):
        fetch(f"http://127.0.0.1:{port}/", allow_private=True, timeout=5)


def test_redirect_to_an_unresolvable_name(
    server: Server, loopback_is_public: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"gone.test": socket.gaierror(-2, "Name or service not known")})

    def redirect_to_gone(handler: _Handler) -> None:
        handler.hits.append(handler.path)
        handler._redirect("http://gone.test/x")

    monkeypatch.setattr(_Handler, "do_GET", redirect_to_gone)
    with pytest.raises(FetchError, match=re.escape("gone.test")) as caught:
        fetch(server.url("/anything"), allow_private=False)
    assert not isinstance(caught.value, RefusedHost)
