"""``forget_user`` and ``delete_memories`` over real components (kills the mutants of
``maintenance/erasure.py``): SQLite in a tmp dir, a real Chroma ``PersistentClient`` and the
repo's hashed bag-of-words embedder (tests/integration/test_embedding_space.py), so no model
is loaded. Each derived store is checked: vectors, the fact-graph cache, the entity cache."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from integration.test_chroma_outage import ChromaServer, _chroma_binary
from integration.test_embedding_space import HashedBagOfWords

from nova_memory_integrations.config import NovaConfig
from nova_memory_integrations.engine.components import Components, build_components
from nova_memory_integrations.engine.indexer import Indexer
from nova_memory_integrations.engine.vector_drops import PENDING_DROP_KEY
from nova_memory_integrations.maintenance.erasure import delete_memories, forget_user
from nova_memory_integrations.storage.vectors import SCRUB_KEY
from nova_memory_integrations.types import Episode, Fact, Rule

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
KINDS = (("episode", "e"), ("fact", "f"), ("rule", "r"))


def fill(c: Components, user: str) -> None:
    """Two episodes, two facts (own lineages), two rules, an entity with an alias; all indexed."""
    p = user[0]
    c.db.insert_episodes([Episode(id=f"{p}e{n}", user_id=user, role="user", content=f"{user} said thing {n}",
                                  timestamp=T0, ingested_at=T0) for n in (1, 2)])
    for n in (1, 2):
        c.db.insert_fact(Fact(id=f"{p}f{n}", lineage_id=f"{p}f{n}", user_id=user, subject="user",
                              predicate="likes", object=f"thing{n}", confidence=0.8, valid_from=T0, ingested_at=T0),
                         f"thing{n}", 0.0)
        c.db.insert_rule(Rule(id=f"{p}r{n}", user_id=user, condition=f"when {n}", action="act", confidence=0.5,
                              created_at=T0))
    c.entities.add_alias(user, "Lisbon", "Lisboa")
    c.indexer.recover()
    assert c.indexer.wait(timeout=30)


@pytest.fixture()
def comps(tmp_path: Path) -> Iterator[Components]:
    c = build_components(tmp_path, NovaConfig(), embeddings=HashedBagOfWords())
    fill(c, "alice")
    fill(c, "bob")
    yield c
    c.close()


def vector_ids(c: Components, user: str) -> list[list[str]]:
    return [sorted(c.vectors.get_user_ids(kind, user)) for kind, _ in KINDS]


def graph_facts(c: Components, user: str) -> list[str]:
    return sorted(key for _, _, key in c.graph.graph(user).edges(keys=True))


# -- forget_user ----------------------------------------------------------------------------------------


def test_forget_reports_the_rows_removed(comps: Components) -> None:
    counts = forget_user(comps, "alice")
    assert [counts["episodes"], counts["facts"], counts["rules"]] == [2, 2, 2]


def test_forget_removes_the_rows(comps: Components) -> None:
    forget_user(comps, "alice")
    assert comps.db.counts_by_user("alice") == {}


def test_forget_removes_the_vectors(comps: Components) -> None:
    forget_user(comps, "alice")
    assert vector_ids(comps, "alice") == [[], [], []]


def test_forget_keeps_the_other_users_vectors(comps: Components) -> None:
    forget_user(comps, "alice")
    assert vector_ids(comps, "bob") == [["be1", "be2"], ["bf1", "bf2"], ["br1", "br2"]]


def test_forget_drops_the_cached_fact_graph(comps: Components) -> None:
    assert graph_facts(comps, "alice") == ["af1", "af2"]  # cached now
    forget_user(comps, "alice")
    assert graph_facts(comps, "alice") == []


def test_forget_keeps_the_other_users_cached_graph(comps: Components) -> None:
    cached = comps.graph.graph("bob")
    forget_user(comps, "alice")
    assert comps.graph.graph("bob") is cached


def test_forget_drops_the_cached_entities(comps: Components) -> None:
    assert comps.entities.alias_map("alice") != {}  # cached now
    forget_user(comps, "alice")
    assert comps.entities.alias_map("alice") == {}


def stuck(c: Components, user: str) -> Components:
    """The components with a stopped indexer that still has one of ``user``'s rows queued."""
    indexer = Indexer(c.db, c.vectors, c.embedder)
    indexer.stop(timeout=0)
    indexer.submit("episodes", [("ae1", user)])
    return replace(c, indexer=indexer)


@pytest.mark.timeout(20)
def test_forget_does_not_wait_for_a_stopped_indexer(comps: Components) -> None:
    start = time.monotonic()
    forget_user(stuck(comps, "alice"), "alice")
    assert time.monotonic() - start < 5


# -- delete_memories ----------------------------------------------------------------------------------------


def test_delete_reports_what_was_removed(comps: Components) -> None:
    assert delete_memories(comps, "alice", ["ae1", "af1", "ar1", "be2"]) == {
        "episodes": ["ae1"], "facts": ["af1"], "rules": ["ar1"]}


def test_delete_removes_the_vectors_of_every_kind(comps: Components) -> None:
    delete_memories(comps, "alice", ("ae1", "af1", "ar1"))
    assert vector_ids(comps, "alice") == [["ae2"], ["af2"], ["ar2"]]


def test_delete_never_touches_another_users_vectors(comps: Components) -> None:
    delete_memories(comps, "alice", ["be1", "bf1", "br1"])
    assert vector_ids(comps, "bob") == [["be1", "be2"], ["bf1", "bf2"], ["br1", "br2"]]


def test_delete_drops_the_cached_fact_graph(comps: Components) -> None:
    assert graph_facts(comps, "alice") == ["af1", "af2"]  # cached now
    delete_memories(comps, "alice", ["af1"])
    assert graph_facts(comps, "alice") == ["af2"]


def test_delete_keeps_the_other_users_cached_graph(comps: Components) -> None:
    cached = comps.graph.graph("bob")
    delete_memories(comps, "alice", ["af1"])
    assert comps.graph.graph("bob") is cached


def test_delete_drops_the_cached_entities(comps: Components) -> None:
    assert comps.entities.alias_map("alice") != {}  # cached now
    comps.db.delete_ids("alice", ["af1"])  # storage only: drops the entities no fact names, cache untouched
    delete_memories(comps, "alice", ["ae1"])
    assert comps.entities.alias_map("alice") == {}


@pytest.mark.timeout(20)
def test_delete_does_not_wait_for_a_stopped_indexer(comps: Components) -> None:
    start = time.monotonic()
    delete_memories(stuck(comps, "alice"), "alice", ["ae2"])
    assert time.monotonic() - start < 5


def erase_while_the_indexer_writes(comps: Components, erase: Any) -> float:
    """Run ``erase`` while another thread holds alice's indexer barrier (a write in flight) for
    0.3 s; returns how long ``erase`` took."""
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with comps.indexer.barrier("alice"):
            holding.set()
            release.wait(5)

    t = threading.Thread(target=writer)
    t.start()
    holding.wait(5)
    threading.Timer(0.3, release.set).start()
    start = time.monotonic()
    erase()
    took = time.monotonic() - start
    t.join()
    return took


def test_forget_waits_for_the_users_write_in_flight(comps: Components) -> None:
    assert erase_while_the_indexer_writes(comps, lambda: forget_user(comps, "alice")) >= 0.25


def test_delete_waits_for_the_users_write_in_flight(comps: Components) -> None:
    assert erase_while_the_indexer_writes(comps, lambda: delete_memories(comps, "alice", ["ae1"])) >= 0.25


# -- hidden memories, store items, the scrub ------------------------------------------------------------------------


def hidden_episodes(c: Components, user: str) -> list[str]:
    return [i for i, _ in c.db.hidden_ids(user)["episodes"]]


def test_forget_reports_the_hidden_memories(comps: Components) -> None:
    comps.db.hide_rows("alice", ["ae1", "ar1"], 1.0)
    assert forget_user(comps, "alice")["hidden"] == 2


def test_forget_erases_the_hidden_memories(comps: Components) -> None:
    comps.db.hide_rows("alice", ["ae1", "ar1"], 1.0)
    forget_user(comps, "alice")
    assert comps.db.hidden_counts("alice") == {}


def test_forget_reports_the_store_items(comps: Components) -> None:
    for key in ("k1", "k2"):
        comps.db.put_item("alice", "notes", key, "{}", "[]", "", 1.0, f"item-{key}")
    assert forget_user(comps, "alice")["items"] == 2


def test_forget_leaves_no_scrub_pending(comps: Components) -> None:
    forget_user(comps, "alice")
    assert comps.db.get_meta(SCRUB_KEY) == "0"


def test_forget_marks_a_scrub_pending_while_it_scrubs(comps: Components, monkeypatch: pytest.MonkeyPatch) -> None:
    real = comps.vectors.scrub
    seen: list[str | None] = []

    def scrub() -> bool:
        seen.append(comps.db.get_meta(SCRUB_KEY))  # what the next open finds if this process dies now
        return real()

    monkeypatch.setattr(comps.vectors, "scrub", scrub)
    forget_user(comps, "alice")
    assert seen == ["1"]


def test_delete_reports_a_hidden_memory_with_the_rest(comps: Components) -> None:
    comps.db.hide_rows("alice", ["ae1"], 1.0)
    assert delete_memories(comps, "alice", ["ae1", "ae2"]) == {"episodes": ["ae2", "ae1"], "facts": [], "rules": []}


def test_delete_erases_a_hidden_memory(comps: Components) -> None:
    comps.db.hide_rows("alice", ["ae1"], 1.0)
    delete_memories(comps, "alice", ["ae1"])
    assert hidden_episodes(comps, "alice") == []


def test_delete_keeps_the_hidden_memories_not_named(comps: Components) -> None:
    comps.db.hide_rows("alice", ["ae1", "ae2"], 1.0)
    delete_memories(comps, "alice", ["ae1"])
    assert hidden_episodes(comps, "alice") == ["ae2"]


# -- during an outage of the vector index ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def unreachable_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A chromadb ``HttpClient`` whose server (a real ``chroma run``) was killed after the client connected:
    every call fails as in an outage (connection refused)."""
    binary = _chroma_binary()
    if binary is None:
        pytest.skip("the `chroma` server binary (chromadb's CLI) is not installed next to this Python or on PATH")
    import chromadb

    server = ChromaServer(binary, tmp_path_factory.mktemp("chroma-server"))
    server.start()
    try:
        return chromadb.HttpClient(host="127.0.0.1", port=server.port)
    finally:
        server.kill()


@pytest.fixture()
def outage(tmp_path: Path, unreachable_client: Any) -> Iterator[Components]:
    """Alice's and Bob's rows in SQLite, the index unreachable, and a stopped indexer (what it is handed stays
    queued)."""
    c = build_components(tmp_path, NovaConfig(), embeddings=HashedBagOfWords(), chroma_client=unreachable_client)
    for user in ("alice", "bob"):
        p = user[0]
        c.db.insert_episodes([Episode(id=f"{p}e{n}", user_id=user, role="user", content=f"{user} said {n}",
                                      timestamp=T0, ingested_at=T0) for n in (1, 2)])
        c.db.insert_rule(Rule(id=f"{p}r1", user_id=user, condition="when", action="act", confidence=0.5,
                              created_at=T0))
    indexer = Indexer(c.db, c.vectors, c.embedder)
    indexer.stop(timeout=0)
    yield replace(c, indexer=indexer)
    c.close()


def test_forget_during_an_outage_erases_the_rows(outage: Components) -> None:
    assert forget_user(outage, "alice")["episodes"] == 2


def test_forget_during_an_outage_leaves_the_drop_to_the_next_open(outage: Components) -> None:
    forget_user(outage, "alice")
    assert outage.db.get_meta(PENDING_DROP_KEY) == '["alice"]'


def test_delete_during_an_outage_leaves_the_vectors_to_the_indexer(outage: Components) -> None:
    delete_memories(outage, "alice", ["ae1", "ar1"])
    assert [outage.indexer.pending_ids("alice", "episodes"), outage.indexer.pending_ids("alice", "rules")] == [
        ["ae1"], ["ar1"]]


def test_delete_during_an_outage_warns_once_per_kind(outage: Components, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.maintenance.erasure"):
        delete_memories(outage, "alice", ["ae1", "ae2", "ar1"])
    assert [r.getMessage() for r in caplog.records if r.name == "nova_memory_integrations.maintenance.erasure"] == [
        "nova-memory: the vector index is unreachable; 2 deleted episode vectors are removed when it is back",
        "nova-memory: the vector index is unreachable; 1 deleted rule vectors are removed when it is back"]
