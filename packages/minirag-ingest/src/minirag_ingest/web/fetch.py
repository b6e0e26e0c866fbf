"""Fetching a web page for ingest_url, with the scheme and host checks that keep it safe.

The URL is often chosen by a language model acting on text from an indexed document, so a
fetch must not reach this machine, the LAN or a cloud metadata service. Only http and https are
accepted, before any I/O. The host check runs inside the transport adapter, which sees every
request of a redirect chain, and the chain is capped at five redirects.

Known gap: the check resolves a name, then the connection resolves it again; a name whose
answer changes between the two (DNS rebinding) is not caught.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from dataclasses import dataclass, field
from email.message import Message
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter

from minirag_ingest.errors import IngestError

ALLOWED_SCHEMES = frozenset({"http", "https"})
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_BYTES = 104_857_600
USER_AGENT = "minirag-mcp (+https://pypi.org/project/minirag-mcp/)"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class UrlError(IngestError):
    """Base class for everything :func:`fetch` raises."""


class UnsupportedScheme(UrlError, ValueError):
    """The URL is not http or https."""


class FetchError(UrlError):
    """The page could not be fetched: no such host, a network or HTTP error, too big."""


class RefusedHost(UrlError):
    """The host is, or resolves to, an address the guard blocks."""

    def __init__(
        self,
        host: str,
        reason: str,
        redirected_from: str | None = None,
        redirected_to: str | None = None,
    ) -> None:
        message = f"Refusing to fetch from host {host}: {reason}."
        if redirected_from is not None:
            message += (
                f" The fetch was redirected there from {redirected_from}:"
                f" it redirected to {redirected_to}."
            )
        message += " Set ALLOW_PRIVATE_URLS=1 only if this host is meant to be reachable."
        super().__init__(message)
        self.host = host
        self.reason = reason
        self.redirected_from = redirected_from
        self.redirected_to = redirected_to

    def via_redirect(self, previous_url: str, url: str) -> RefusedHost:
        return RefusedHost(self.host, self.reason, previous_url, url)


def check_scheme(url: str) -> str:
    """Return the URL's scheme if it is http or https; raise :class:`UnsupportedScheme`
    otherwise. Purely lexical: nothing is opened or resolved."""
    scheme = urlsplit(url.strip()).scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme}:" if scheme else "no scheme"
        raise UnsupportedScheme(
            f"Only http and https URLs can be fetched; {url!r} has {shown}. "
            "Local files are ingested with ingest_file, inline content with ingest_data."
        )
    return scheme


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside an IPv6 one (6to4, Teredo, NAT64, IPv4-compatible)."""
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def blocked_reason(address: IPAddress) -> str | None:
    """Why fetching from ``address`` is refused, or None when it is a public address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        inner_reason = blocked_reason(address.ipv4_mapped)
        if inner_reason is None:
            return None
        return f"an IPv4-mapped address for {address.ipv4_mapped}, {inner_reason}"
    if address in _METADATA_ADDRESSES:
        return "a cloud instance metadata address"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            inner_reason = blocked_reason(inner)
            if inner_reason is not None:
                return f"an IPv6 address carrying {inner}, {inner_reason}"
    if not address.is_global:
        return "not a publicly routable address"
    return None


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return None


class HostGuard:
    """Refuses hosts that are, or resolve to, non-public addresses (unless allowed)."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    def resolve(self, host: str, port: int | None) -> list[IPAddress]:
        """Every address ``host`` resolves to; a lookup failure is a :class:`FetchError`."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise FetchError(f"could not resolve host {host}: {exc}") from exc
        addresses: list[IPAddress] = []
        for info in infos:
            address = _literal(str(info[4][0]))
            if address is not None and address not in addresses:
                addresses.append(address)
        if not addresses:
            raise FetchError(f"could not resolve host {host}: no addresses")
        return addresses

    def check(self, host: str, port: int | None = None) -> None:
        """Raise :class:`RefusedHost` if any address of ``host`` is blocked."""
        if self.allow_private:
            return
        if not host:
            raise FetchError("the URL names no host")
        literal = _literal(host)
        if literal is not None:
            reason = blocked_reason(literal)
            if reason is not None:
                raise RefusedHost(host, f"{literal} is {reason}")
            return
        for address in self.resolve(host, port):
            reason = blocked_reason(address)
            if reason is not None:
                raise RefusedHost(host, f"it resolves to {address}, {reason}")

    def check_url(self, url: str) -> None:
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError as exc:
            raise FetchError(f"invalid port in {url}") from exc
        self.check(parts.hostname or "", port)


class GuardedAdapter(HTTPAdapter):
    """An HTTP adapter that runs the host guard before every request it sends."""

    def __init__(self, guard: HostGuard, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.guard = guard

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        check_scheme(request.url or "")
        self.guard.check_url(request.url or "")
        return super().send(request, *args, **kwargs)


@dataclass(frozen=True)
class FetchedPage:
    url: str  # as asked for
    final_url: str  # after redirects
    content: bytes
    content_type: str  # media type only, lower case ("text/html")
    charset: str | None
    headers: dict[str, str] = field(default_factory=dict)  # of the final response


def guarded_session(guard: HostGuard) -> requests.Session:
    session = requests.Session()
    adapter = GuardedAdapter(guard, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.max_redirects = MAX_REDIRECTS
    session.headers["User-Agent"] = USER_AGENT
    return session


def _content_type(header: str) -> tuple[str, str | None]:
    message = Message()
    message["content-type"] = header or "application/octet-stream"
    charset = message.get_param("charset")
    return message.get_content_type(), charset if isinstance(charset, str) else None


def fetch(
    url: str,
    *,
    allow_private: bool,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> FetchedPage:
    """Fetch ``url`` over http(s), checking scheme and host on every redirect hop.

    Raises :class:`UnsupportedScheme`, :class:`RefusedHost` or :class:`FetchError`.
    ``allow_private`` lifts only the host check. ``timeout`` bounds each network wait and
    the whole download.
    """
    check_scheme(url)
    guard = HostGuard(allow_private)
    deadline = time.monotonic() + timeout
    current, previous = url, None
    with guarded_session(guard) as session:
        for _hop in range(MAX_REDIRECTS + 1):
            response = _request(session, current, previous, timeout)
            with response:
                if response.is_redirect:
                    target = _redirect_target(response, current)
                    previous, current = current, target
                    continue
                return _read(response, url, max_bytes, deadline)
    raise FetchError(
        f"could not fetch {url}: the redirect chain exceeded {MAX_REDIRECTS} redirects "
        f"(the last hop pointed to {current})"
    )


def _request(
    session: requests.Session, url: str, previous: str | None, timeout: float
) -> requests.Response:
    try:
        return session.get(url, allow_redirects=False, stream=True, timeout=timeout)
    except RefusedHost as exc:
        raise (exc if previous is None else exc.via_redirect(previous, url)) from None
    except UnsupportedScheme:
        raise
    except FetchError as exc:
        raise FetchError(f"could not fetch {url}: {exc}") from exc
    except requests.RequestException as exc:
        raise FetchError(f"could not fetch {url}: {exc}") from exc


def _redirect_target(response: requests.Response, current: str) -> str:
    location = response.headers.get("location", "")
    target = urljoin(current, location.encode("latin1").decode("utf8", "replace"))
    try:
        check_scheme(target)
    except UnsupportedScheme as exc:
        raise UnsupportedScheme(f"{current} redirected to a non-http(s) URL: {exc}") from None
    return target


def _read(response: requests.Response, url: str, max_bytes: int, deadline: float) -> FetchedPage:
    if response.status_code >= 400:
        raise FetchError(f"could not fetch {response.url}: HTTP {response.status_code}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"{response.url} is larger than the {max_bytes}-byte limit")
    chunks: list[bytes] = []
    received = 0
    try:
        for chunk in response.iter_content(chunk_size=65536):
            received += len(chunk)
            if received > max_bytes:
                raise FetchError(f"{response.url} is larger than the {max_bytes}-byte limit")
            if time.monotonic() > deadline:
                raise FetchError(f"{response.url} took too long to download")
            chunks.append(chunk)
    except requests.RequestException as exc:
        raise FetchError(f"could not fetch {response.url}: {exc}") from exc
    content_type, charset = _content_type(response.headers.get("content-type", ""))
    return FetchedPage(
        url=url,
        final_url=response.url,
        content=b"".join(chunks),
        content_type=content_type,
        charset=charset,
        headers=dict(response.headers),
    )
