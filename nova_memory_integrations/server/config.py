"""Settings of the memory server: bind address, upstream, API keys and limits.

Read from the command line (``nova-memory serve --help``) and, for what is not given
there, from the environment:

- ``NOVA_MEMORY_UPSTREAM``: base URL of the OpenAI-compatible upstream (e.g.
  ``https://api.openai.com/v1``); without it the proxy routes answer 503.
- ``NOVA_MEMORY_API_KEYS``: comma-separated API keys of the server itself; ``KEY=USER``
  pins a key to one user id. Required when binding anything but loopback.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import ConfigError

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LOG_LEVELS", "ServerConfig", "is_loopback", "parse_api_keys"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
ENV_UPSTREAM = "NOVA_MEMORY_UPSTREAM"
ENV_API_KEYS = "NOVA_MEMORY_API_KEYS"
_MIN_KEY_CHARS = 16


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


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

    def __post_init__(self) -> None:
        if self.upstream is not None:
            url = self.upstream.strip().rstrip("/")
            if not url.startswith(("http://", "https://")):
                raise ConfigError(f"the upstream must be an http(s) base URL, not {self.upstream!r}")
            object.__setattr__(self, "upstream", url)
        for name in ("max_body_bytes", "max_message_chars"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be positive")
        if not self.upstream_timeout > 0:
            raise ConfigError("upstream_timeout must be positive")
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

    @classmethod
    def from_env(
        cls, *, upstream: str | None = None, api_keys: Iterable[str] = (), env: Mapping[str, str] | None = None,
        **kw: object,
    ) -> ServerConfig:
        """A config from explicit values, completed from ``NOVA_MEMORY_UPSTREAM`` / ``NOVA_MEMORY_API_KEYS``."""
        env = os.environ if env is None else env
        specs = list(api_keys) or [env.get(ENV_API_KEYS, "")]
        return cls(upstream=upstream or env.get(ENV_UPSTREAM) or None, api_keys=parse_api_keys(specs),
                   **kw)  # type: ignore[arg-type]


LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
"""uvicorn's log levels offered by ``nova-memory serve --log-level``."""
