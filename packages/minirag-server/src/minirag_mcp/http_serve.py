"""Serving over fastmcp's streamable HTTP transport (``minirag-mcp serve --http``).

One process, one model and one index snapshot for every client that connects. Whenever it
listens it wants a bearer token (MINIRAG_TOKEN, or the named tokens of the file or folder
MINIRAG_TOKEN_FILE names: :mod:`minirag_mcp.tokens`); it binds the loopback address unless
told ``--allow-remote``; fastmcp's Host/Origin guard, in strict mode, refuses a Host or Origin
outside the allowed lists (DNS rebinding); :mod:`minirag_mcp.http_guard` bounds each client's
rate (by peer address; forwarded headers only from HTTP_TRUSTED_PROXIES) and each request's
body; :mod:`minirag_mcp.connections` times out incomplete request heads and caps the
connections per address; :mod:`minirag_mcp.access_log` writes a line per tool call.
"""

from __future__ import annotations

import ipaddress
import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from minirag_index.settings import ConfigError
from minirag_mcp.config import Config, ConfigProblem, ServerSettings
from minirag_mcp.tokens import TokenSource, load_tokens

if TYPE_CHECKING:
    from starlette.middleware import Middleware

    from minirag_mcp.connections import ConnectionGuard
    from minirag_mcp.http_guard import IPNetwork

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


@dataclass(frozen=True)
class HttpPlan:
    """Where and how the HTTP server listens, checked before anything starts."""

    host: str
    port: int
    tokens: TokenSource
    max_body: int
    rate: float
    burst: int
    allowed_hosts: list[str]
    allowed_origins: list[str]
    trusted_proxies: tuple[IPNetwork, ...] = ()
    header_timeout: float = 10.0
    idle_timeout: int = 15
    max_connections_per_client: int = 64
    log_queries: bool = False

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{MCP_PATH}"


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def comma_list(text: str | None) -> list[str]:
    return [item.strip() for item in (text or "").split(",") if item.strip()]


def load_token(settings: ServerSettings) -> TokenSource:
    """The bearer tokens (see :mod:`minirag_mcp.tokens`). Raises :class:`ConfigError` naming
    the variable or the file and line, and how to make a token."""
    secret = settings.MINIRAG_TOKEN.get_secret_value() if settings.MINIRAG_TOKEN else None
    return load_tokens(secret, settings.MINIRAG_TOKEN_FILE)


def http_plan(config: Config, host: str, port: int, *, allow_remote: bool) -> HttpPlan:
    """Check the token and the address; raises :class:`ConfigError` saying what to change."""
    if not is_loopback(host) and not allow_remote:
        raise ConfigError(
            f"--host {host} is not a loopback address: the HTTP transport has no TLS, so "
            "anyone on the network path can read the token and the answers. Keep to "
            "127.0.0.1 (with an SSH tunnel or a TLS proxy in front), or pass --allow-remote "
            "to listen there anyway",
            variable="--host",
        )
    if not 0 < port < 65536:
        raise ConfigError(f"--port must be from 1 to 65535, got {port}", variable="--port")
    server = config.server
    return HttpPlan(
        host=host,
        port=port,
        tokens=load_token(server),
        max_body=server.HTTP_MAX_BODY_BYTES,
        rate=server.HTTP_RATE_PER_SECOND,
        burst=server.HTTP_RATE_BURST,
        allowed_hosts=comma_list(server.HTTP_ALLOWED_HOSTS),
        allowed_origins=comma_list(server.HTTP_ALLOWED_ORIGINS),
        # Checked by the setting's validator already.
        trusted_proxies=tuple(
            ipaddress.ip_network(item, strict=False)
            for item in comma_list(server.HTTP_TRUSTED_PROXIES)
        ),
        header_timeout=server.HTTP_HEADER_TIMEOUT,
        idle_timeout=server.HTTP_IDLE_TIMEOUT,
        max_connections_per_client=server.HTTP_MAX_CONNECTIONS_PER_CLIENT,
        log_queries=server.HTTP_LOG_QUERIES,
    )


def guard_middleware(plan: HttpPlan, connections: ConnectionGuard | None) -> list[Middleware]:
    """Our checks, outermost first: telling the connection its request's head is complete,
    the rate, the token (and the discovery paths' 404), the body (all after fastmcp's Host
    and Origin guard, which it places in front of any middleware it is given)."""
    from starlette.middleware import Middleware

    from minirag_mcp.connections import TrackRequests
    from minirag_mcp.http_guard import BearerToken, BodyLimit, Proxies, RateLimit, TokenBuckets

    return [
        Middleware(TrackRequests, guard=connections),
        Middleware(
            RateLimit,
            buckets=TokenBuckets(plan.rate, plan.burst),
            proxies=Proxies(plan.trusted_proxies),
        ),
        Middleware(BearerToken, source=plan.tokens),
        Middleware(BodyLimit, limit=plan.max_body, idle=float(plan.idle_timeout)),
    ]


def uvicorn_settings(plan: HttpPlan, connections: ConnectionGuard) -> dict[str, Any]:
    """uvicorn's own settings: no belief in forwarded headers (its default trusts them from
    127.0.0.1, where every SSH-tunnelled client comes from; :class:`Proxies` does it for the
    addresses the operator names), the idle timeout between requests, and the connection
    guard (:mod:`minirag_mcp.connections`) around its HTTP protocol."""
    from minirag_mcp.connections import guarded_protocol

    return {
        "log_level": "warning",
        "proxy_headers": False,
        "forwarded_allow_ips": [],
        "timeout_keep_alive": plan.idle_timeout,
        # No WebSocket: nothing here serves one, and an upgraded connection would leave the
        # guarded protocol (its connection count never given back).
        "ws": "none",
        "http": guarded_protocol(connections),
    }


def serve_http(
    config: Config | ConfigProblem,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    allow_remote: bool = False,
    watch: bool = False,
) -> None:
    """Run the server over HTTP until it is stopped. Raises :class:`ConfigError` before
    listening when the configuration, the token or the address is not usable."""
    from minirag_mcp.access_log import AccessLog
    from minirag_mcp.connections import ConnectionGuard
    from minirag_mcp.http_guard import Proxies
    from minirag_mcp.server import build_app, stop_app, warm_modules
    from minirag_mcp.warmup import WarmUpAfterInitialize

    if isinstance(config, ConfigProblem):
        raise ConfigError(f"Configuration error: {config.error}")
    plan = http_plan(config, host, port, allow_remote=allow_remote)
    proxies = Proxies(plan.trusted_proxies)
    connections = ConnectionGuard(
        plan.header_timeout, plan.max_connections_per_client, exempt=proxies.trusts
    )
    if not is_loopback(host):
        log.warning("listening on %s without TLS: put a TLS-terminating proxy in front", host)
    app, app_ctx = build_app(config, watch=watch)
    warm_up = WarmUpAfterInitialize(warm_modules(config))
    app.add_middleware(warm_up)
    app.add_middleware(AccessLog(log_arguments=plan.log_queries))
    mode = "read-only" if config.read_only else "read-write"
    names = ", ".join(t.name for t in plan.tokens.tokens().tokens)
    print(
        f"minirag: serving {mode} at {plan.url} for the tokens {names} (Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )
    try:
        app.run(
            transport="http",
            show_banner=False,
            host=host,
            port=port,
            path=MCP_PATH,
            middleware=guard_middleware(plan, connections),
            host_origin_protection=True,
            allowed_hosts=plan.allowed_hosts,
            allowed_origins=plan.allowed_origins,
            uvicorn_config=uvicorn_settings(plan, connections),
        )
    finally:
        warm_up.stop()
        stop_app(app_ctx)
