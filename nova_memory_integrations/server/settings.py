"""Settings of the memory server: bind address, upstream, API keys and limits.

Read from the command line (``nova-memory serve --help``) and, for what is not given
there, from the environment:

- ``NOVA_MEMORY_UPSTREAM``: base URL of the OpenAI-compatible upstream (e.g.
  ``https://api.openai.com/v1``); without it the proxy routes answer 503.
- ``NOVA_MEMORY_API_KEYS``: comma-separated API keys of the server itself; ``KEY=USER``
  pins a key to one user id. Required when binding anything but loopback. The way to
  give keys: ``--api-key`` on the command line shows in ``ps`` to every local user.
- ``NOVA_MEMORY_ALLOWED_HOSTS``: comma-separated host names (besides loopback) that
  requests may name in their ``Host`` header (DNS-rebinding guard).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import ConfigError

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LOG_LEVELS", "ServerConfig", "host_name", "is_loopback",
           "parse_allowed_hosts", "parse_api_keys"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
ENV_UPSTREAM = "NOVA_MEMORY_UPSTREAM"
ENV_API_KEYS = "NOVA_MEMORY_API_KEYS"
ENV_ALLOWED_HOSTS = "NOVA_MEMORY_ALLOWED_HOSTS"
_MIN_KEY_CHARS = 16
_HOST_NAME = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$")


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def host_name(authority: str) -> str | None:
    """The host of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``), lowercased,
    without the port and a trailing dot; None when it is not one."""
    text = authority.strip().lower()
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        try:
            return f"[{ipaddress.IPv6Address(host)}]"
        except ValueError:
            return None
    host, _, port = text.partition(":")
    if port and not port.isdigit():
        return None
    host = host.rstrip(".")
    return host if host and _HOST_NAME.match(host) else None


def parse_allowed_hosts(specs: Iterable[str]) -> tuple[str, ...]:
    """``["memory.internal", "a.example,b.example"]`` -> host names (lowercase, no port).

    ``*.example.com`` allows every name under ``example.com``. Ports are not part of it:
    a name is allowed on any port.
    """
    hosts: list[str] = []
    for spec in specs:
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            name = host_name(item)
            if name is None:
                raise ConfigError(f"{item!r} is not a host name (an allowed host is a name or an address, "
                                  "optionally *.domain)")
            if name not in hosts:
                hosts.append(name)
    return tuple(hosts)


def parse_api_keys(specs: Iterable[str]) -> dict[str, str | None]:
    """``["KEY", "KEY2=alice"]`` (or comma-separated items) -> ``{key: pinned user or None}``."""
    keys: dict[str, str | None] = {}
    for spec in specs:
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            key, sep, user = item.partition("=")
            key, user = key.strip(), user.strip()
            if len(key) < _MIN_KEY_CHARS:
                raise ConfigError(f"an API key must have at least {_MIN_KEY_CHARS} characters")
            if sep and not user:
                raise ConfigError("an API key pinned with KEY=USER needs a user id after '='")
            if key in keys and keys[key] != (user or None):
                raise ConfigError("the same API key is given twice with different users")
            keys[key] = user or None
    return keys


@dataclass(frozen=True)
class ServerConfig:
    """What one server process needs beyond its ``NovaStore``.

    Attributes:
        host, port: where uvicorn binds (loopback by default).
        upstream: base URL of the OpenAI-compatible upstream (``.../v1``), or None.
        api_keys: the server's own keys (``X-Nova-Key`` header, or ``Authorization:
            Bearer`` on the memory and MCP routes), each pinned to a user id or None.
        budget_tokens: token budget of the memory injected into a proxied request (None:
            the store's ``retrieval.budget_tokens``).
        max_body_bytes: largest request body accepted (413 above).
        max_message_chars: largest single chat message accepted by the proxy (413 above).
        upstream_timeout: seconds to wait for the upstream's next byte, the first one included
            (``--upstream-timeout``; long, since a model may think a while before its first
            token): past it a request gets a 504 and a stream is cut (captured incomplete).
        mcp: mount the MCP streamable HTTP endpoint at ``/mcp``.
        allowed_hosts: host names, besides loopback ones (``localhost``, ``127.x``,
            ``[::1]``, any port), that a request may name in its ``Host`` header. A server
            without API keys answers any other name with 421 (a web page that rebinds its
            name to this machine reaches nothing); a server with keys accepts every name
            unless this is set.
        max_header_bytes, max_headers: largest request head (request line and headers) and
            most header fields; past either the connection gets a 431 and is closed, before
            the app (and its key check) sees the request.
        header_timeout: seconds a connection has to send a complete request head, counted
            from when it opens or its previous response ends (idle time included, however
            slowly bytes trickle in): then it is closed (408 when part of a head came).
        body_timeout: seconds a request body has to arrive in full once its head came: 408.
        max_connections: most open connections; past it a new connection gets a 503 and is
            closed at once (no descriptor is held).
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    upstream: str | None = None
    api_keys: Mapping[str, str | None] = field(default_factory=dict)
    budget_tokens: int | None = None
    max_body_bytes: int = 8 * 1024 * 1024
    max_message_chars: int = 400_000
    upstream_timeout: float = 600.0
    mcp: bool = True
    allowed_hosts: tuple[str, ...] = ()
    max_header_bytes: int = 32 * 1024
    max_headers: int = 100
    header_timeout: float = 10.0
    body_timeout: float = 60.0
    max_connections: int = 512

    def __post_init__(self) -> None:
        if self.upstream is not None:
            url = self.upstream.strip().rstrip("/")
            if not url.startswith(("http://", "https://")):
                raise ConfigError(f"the upstream must be an http(s) base URL, not {self.upstream!r}")
            object.__setattr__(self, "upstream", url)
        for name in ("max_body_bytes", "max_message_chars", "max_headers", "max_connections"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be positive")
        if self.max_header_bytes < 1024:
            raise ConfigError("max_header_bytes must be at least 1024")
        for name in ("upstream_timeout", "header_timeout", "body_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive")
        object.__setattr__(self, "allowed_hosts", parse_allowed_hosts(
            [self.allowed_hosts] if isinstance(self.allowed_hosts, str) else self.allowed_hosts))
        if self.budget_tokens is not None and self.budget_tokens < 1:
            raise ConfigError("budget_tokens must be positive")
        if not 0 < self.port < 65536:
            raise ConfigError(f"port must be 1..65535, not {self.port}")
        self.check_bind()

    def check_bind(self) -> None:
        """Refuse a non-loopback address without API keys (anyone on the network could read memory)."""
        if not is_loopback(self.host) and not self.api_keys:
            raise ConfigError(
                f"binding {self.host} (not loopback) requires an API key: pass --api-key or set {ENV_API_KEYS}"
            )

    def host_allowed(self, name: str) -> bool:
        """Whether a request naming host ``name`` (from :func:`host_name`) is served.

        Loopback names always are; ``allowed_hosts`` too; any name when the server has API
        keys and no ``allowed_hosts`` (a key, not the name, is then what lets a request in).
        """
        if is_loopback(name):
            return True
        for allowed in self.allowed_hosts:
            if name == allowed or (allowed.startswith("*.") and name.endswith(allowed[1:])):
                return True
        return bool(self.api_keys) and not self.allowed_hosts

    @classmethod
    def from_env(
        cls, *, upstream: str | None = None, api_keys: Iterable[str] = (), allowed_hosts: Iterable[str] = (),
        env: Mapping[str, str] | None = None, **kw: object,
    ) -> ServerConfig:
        """A config from explicit values, completed from ``NOVA_MEMORY_UPSTREAM`` / ``NOVA_MEMORY_API_KEYS``
        / ``NOVA_MEMORY_ALLOWED_HOSTS``."""
        env = os.environ if env is None else env
        specs = list(api_keys) or [env.get(ENV_API_KEYS, "")]
        hosts = list(allowed_hosts) or [env.get(ENV_ALLOWED_HOSTS, "")]
        return cls(upstream=upstream or env.get(ENV_UPSTREAM) or None, api_keys=parse_api_keys(specs),
                   allowed_hosts=parse_allowed_hosts(hosts), **kw)  # type: ignore[arg-type]


LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
"""uvicorn's log levels offered by ``nova-memory serve --log-level``."""
