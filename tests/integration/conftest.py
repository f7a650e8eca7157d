"""Fixtures of the memory-server tests (``test_server_*.py``): one way to start a real upstream and a
real uvicorn server over the test's store, so every server test runs the server alike.

``server_harness`` (and with it uvicorn) is imported when a server fixture is used, not when the other
integration tests are collected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from nova_memory_integrations import NovaStore

if TYPE_CHECKING:
    from server_harness import FakeUpstream, ServerThread


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    """A real OpenAI-compatible upstream (``server_harness.FakeUpstream``), stopped after the test."""
    from server_harness import FakeUpstream

    u = FakeUpstream().start()
    yield u
    u.stop()


@pytest.fixture
def serve(store: NovaStore, upstream: FakeUpstream) -> Iterator[Callable[..., ServerThread]]:
    """``serve(other_store=None, *, parser="auto", **settings)``: a started server over ``store`` (or
    ``other_store``) whose ``ServerConfig`` is ``settings``, proxying to ``upstream`` and without the MCP
    route unless the settings say otherwise; every server started is stopped after the test."""
    from server_harness import ServerThread

    from nova_memory_integrations.server import ServerConfig, create_app

    started: list[ServerThread] = []

    def factory(other_store: NovaStore | None = None, *, parser: str = "auto", **settings: Any) -> ServerThread:
        settings.setdefault("upstream", upstream.base_url)
        settings.setdefault("mcp", False)
        srv = ServerThread(create_app(other_store or store, ServerConfig(**settings)), parser=parser).start()
        started.append(srv)
        return srv

    yield factory
    for srv in started:
        srv.stop()
