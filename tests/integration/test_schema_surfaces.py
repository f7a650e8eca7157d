"""Declared schemas (issue #40) through every surface that reads or writes facts: REST (filter by
kind, the refused facts, a bad value -> 422), MCP (filter by kind), the memory tools (a bad value
is an error the model can read, nothing stored) and ``NovaMemory(schemas=...)``. Real uvicorn,
real stores with MiniLM; no fake at all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import httpx
import pytest
from pydantic import BaseModel, Field
from server_harness import ServerThread
from test_server_mcp import ADMIN_KEY, session_call, text_of

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import NovaMemory, create_memory_tools
from nova_memory_integrations.server import ServerConfig, create_app


class Goal(BaseModel):
    """What the client works towards."""

    goal: list[str] = Field(default_factory=list)
    activity_level: Literal["low", "medium", "high"] | None = None


@pytest.fixture
def coach(make_store: Any) -> NovaStore:
    store: NovaStore = make_store(schemas=[Goal])
    store.add_turn("kim", "user", "I live in Leeds. My activity level is extreme. My goal is to swim.")
    store.consolidate("kim")
    return store


@pytest.fixture
def server(coach: NovaStore) -> Iterator[ServerThread]:
    srv = ServerThread(create_app(coach, ServerConfig(api_keys={ADMIN_KEY: None}))).start()
    yield srv
    srv.stop()


def test_rest_filters_by_kind_lists_refused_facts_and_refuses_a_bad_value(server: ServerThread,
                                                                          coach: NovaStore) -> None:
    with httpx.Client(base_url=f"{server.url}/v1/memory", headers={"X-Nova-Key": ADMIN_KEY}, timeout=60) as api:
        facts = api.get("/users/kim/facts", params={"schema": "goal"}).json()["facts"]
        assert [(f["predicate"], f["object"]) for f in facts] == [("goal", "swim")]
        assert len(api.get("/users/kim/facts").json()["facts"]) > 1  # lives_in too, without the filter
        refused = api.get("/users/kim/refused").json()["refused"]
        assert [(r["predicate"], r["object"], r["kind"]) for r in refused] == [("activity_level", "extreme", "goal")]
        bad = api.post("/users/kim/facts", json={"subject": "user", "predicate": "activity_level", "object": "max"})
        assert bad.status_code == 422 and "FactSchemaError" in bad.text
        unknown = api.get("/users/kim/facts", params={"schema": "hobby"})
        assert unknown.status_code == 422 and "not declared" in unknown.text
    assert coach.facts("kim", predicate="activity_level") == []


async def test_mcp_facts_filter_by_kind(server: ServerThread) -> None:
    _, (found,) = await session_call(f"{server.url}/mcp", ADMIN_KEY,
                                     [("facts", {"user_id": "kim", "schema": "goal"})])
    assert not found.is_error
    assert '"predicate":"goal"' in text_of(found).replace(" ", "") and "Leeds" not in text_of(found)


def test_the_remember_tool_reads_the_refusal_and_stores_nothing(coach: NovaStore) -> None:
    remember = {t.name: t for t in create_memory_tools(coach, user_id="kim")}["remember"]
    said = remember.invoke({"subject": "user", "predicate": "activity_level", "object": "max"})
    assert "remember failed" in said and "'low', 'medium' or 'high'" in said
    assert coach.facts("kim", predicate="activity_level") == []
    assert "Remembered" in remember.invoke({"subject": "user", "predicate": "activity_level", "object": "High"})
    assert [f.object for f in coach.facts("kim", predicate="activity_level")] == ["high"]


def test_nova_memory_declares_its_schemas_on_the_store(store: NovaStore) -> None:
    NovaMemory(store, user_id="kim", schemas=[Goal])
    assert store.config.facts.schemas == (Goal,)
    assert [p.name for p in store.config.facts.predicates] == ["goal", "activity_level"]
