"""Serving over fastmcp's streamable HTTP transport (``minirag-mcp serve --http``).

One process, one model and one index snapshot for every client that connects. Whenever it
listens it wants a bearer token (MINIRAG_TOKEN, or the file MINIRAG_TOKEN_FILE names); it
binds the loopback address unless told ``--allow-remote``; fastmcp's Host/Origin guard, in
strict mode, refuses a Host or Origin outside the allowed lists (DNS rebinding); and
:mod:`minirag_mcp.http_guard` bounds each client's rate and each request's body.
"""

from __future__ import annotations

import ipaddress
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_index.settings import ConfigError
from minirag_mcp.config import Config, ConfigProblem, ServerSettings

if TYPE_CHECKING:
    from starlette.middleware import Middleware

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MIN_TOKEN_CHARS = 16
MAKE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


@dataclass(frozen=True)
class HttpPlan:
    """Where and how the HTTP server listens, checked before anything starts."""

    host: str
    port: int
    token: str
    max_body: int
    rate: float
    burst: int
    allowed_hosts: list[str]
    allowed_origins: list[str]

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


def load_token(settings: ServerSettings) -> str:
    """The bearer token: MINIRAG_TOKEN, else the first line of MINIRAG_TOKEN_FILE. Raises
    :class:`ConfigError` naming both variables and how to make one when there is none."""
    token = settings.MINIRAG_TOKEN.get_secret_value().strip() if settings.MINIRAG_TOKEN else ""
    source = "MINIRAG_TOKEN"
    if not token and settings.MINIRAG_TOKEN_FILE is not None:
        path = Path(settings.MINIRAG_TOKEN_FILE).expanduser()
        source = f"MINIRAG_TOKEN_FILE ({path})"
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                f"MINIRAG_TOKEN_FILE {path} could not be read: {exc.strerror or exc}",
                variable="MINIRAG_TOKEN_FILE",
            ) from None
    if not token:
        raise ConfigError(
            "serving over HTTP needs a bearer token: set MINIRAG_TOKEN, or MINIRAG_TOKEN_FILE "
            f"to a file holding it; make one with: {MAKE_TOKEN}",
            variable="MINIRAG_TOKEN",
        )
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ConfigError(
            f"the token from {source} must be at least {MIN_TOKEN_CHARS} characters without "
            f"spaces; make one with: {MAKE_TOKEN}",
            variable="MINIRAG_TOKEN",
        )
    return token


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
        token=load_token(server),
        max_body=server.HTTP_MAX_BODY_BYTES,
        rate=server.HTTP_RATE_PER_SECOND,
        burst=server.HTTP_RATE_BURST,
        allowed_hosts=comma_list(server.HTTP_ALLOWED_HOSTS),
        allowed_origins=comma_list(server.HTTP_ALLOWED_ORIGINS),
    )


def guard_middleware(plan: HttpPlan) -> list[Middleware]:
    """Our checks, outermost first: the rate, the token, the body (all after fastmcp's Host
    and Origin guard, which it places in front of any middleware it is given)."""
    from starlette.middleware import Middleware

    from minirag_mcp.http_guard import BearerToken, BodyLimit, RateLimit, TokenBuckets

    return [
        Middleware(RateLimit, buckets=TokenBuckets(plan.rate, plan.burst)),
        Middleware(BearerToken, token=plan.token),
        Middleware(BodyLimit, limit=plan.max_body),
    ]


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
    from minirag_mcp.server import create_app, stop_app, warm_modules
    from minirag_mcp.warmup import WarmUpAfterInitialize

    if isinstance(config, ConfigProblem):
        raise ConfigError(f"Configuration error: {config.error}")
    plan = http_plan(config, host, port, allow_remote=allow_remote)
    if not is_loopback(host):
        log.warning("listening on %s without TLS: put a TLS-terminating proxy in front", host)
    app = create_app(config, watch=watch)
    warm_up = WarmUpAfterInitialize(warm_modules(config))
    app.add_middleware(warm_up)
    mode = "read-only" if config.read_only else "read-write"
    print(f"minirag: serving {mode} at {plan.url} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        app.run(
            transport="http",
            show_banner=False,
            host=host,
            port=port,
            path=MCP_PATH,
            middleware=guard_middleware(plan),
            host_origin_protection=True,
            allowed_hosts=plan.allowed_hosts,
            allowed_origins=plan.allowed_origins,
            uvicorn_config={"log_level": "warning"},
        )
    finally:
        warm_up.stop()
        stop_app(app)
