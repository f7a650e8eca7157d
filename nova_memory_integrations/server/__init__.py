"""Memory as a service: ``nova-memory serve`` (needs the ``server`` extra).

- :mod:`.proxy`: an OpenAI-compatible proxy that injects memory into every chat request
  and captures every exchange (streaming included), failing open.
- :mod:`.rest`: the REST API under ``/v1/memory/`` (OpenAPI docs at ``/docs``).
- :mod:`.ui`: the memory inspector, server-rendered pages at ``/ui`` (also ``nova-memory ui``).
- :mod:`.mcp_server`: MCP tools over stdio (``nova-memory mcp``) and streamable HTTP.
- :mod:`.auth`, :mod:`.settings`: API keys (optionally pinned to a user), limits, binding.
- :mod:`.guard`, :mod:`.protocol`: what every request meets first (Host, Origin,
  Content-Type, header count, body deadline) and the connection-level limits (head size,
  header deadline, connection cap) that ``nova-memory serve`` runs uvicorn with.

One ``NovaStore`` per server process: several worker processes share memory by talking
to one server. Importing this package is cheap; FastAPI and uvicorn load with
``create_app`` / ``serve``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .settings import ServerConfig

if TYPE_CHECKING:
    from .app import create_app, serve

__all__ = ["ServerConfig", "create_app", "serve"]


def __getattr__(name: str) -> Any:
    if name in ("create_app", "serve"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
