"""Export from an embedded store, import into a Postgres one and back, lossless; reindex on
Postgres (issue #39).

Every kind of row a store holds goes through: episodes (with source and importance, a
dead letter's), facts with their whole history and both times (valid and known), decisions,
entities and aliases, conflicts, rules, hidden memories, pinned blocks (with a replaced
version) and LangGraph items. The file written by each store is compared line by line with
the one the first wrote; then the copies are read through the API (facts as of a past date,
search by vectors the importing store computed itself, hidden memories that come back).
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from test_portability import T0, dump, populate

from nova_memory_integrations import NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.langgraph import NovaLangGraphStore

psycopg = pytest.importorskip("psycopg")
EVERY_KIND = {"episode", "fact", "fact_event", "rule", "dead_letter", "entity", "entity_alias", "conflict",
              "pinned_block", "hidden_episodes", "hidden_facts", "hidden_rules", "items"}


def fill(store: NovaStore) -> dict[str, str]:
    """Every kind of row for two users; the ids of the hidden memories."""
    populate(store)
    populate(store, "bob")
    store.add_fact("alice", "user", "works_at", "Acme", valid_from=T0, importance=0.8, source="inferred")
    store.add_fact("alice", "user", "works_at", "Globex", valid_from=T0 + timedelta(days=30))  # a conflict
    store.set_block("alice", "persona", "Speaks Portuguese; prefers short answers.")
    store.set_block("alice", "persona", "Speaks Portuguese and German; prefers short answers.")
    items = NovaLangGraphStore(store)
    items.put(("alice", "notes"), "n1", {"text": "The alarm code is 4411"})
    items.put(("bob", "notes"), "n1", {"text": "Bob's bike is blue"}, index=False)
    episode = store.add_turn("alice", "user", "A secret I hid: my locker is number 88.")
    rule = store.add_rule("alice", "user greets", "greet back in Portuguese", 0.6)
    fact = store.add_fact("alice", "user", "owns", "a red kayak").fact_id
    assert fact is not None
    store.flush(timeout=120)
    store.hide("alice", [episode.id, rule.id, fact])
    return {"episode": episode.id, "rule": rule.id, "fact": fact}


def kinds(lines: list[str]) -> set[str]:
    return {json.loads(line)["kind"] for line in lines[1:]}


def test_embedded_to_postgres_and_back_is_lossless(tmp_path: Path, pg_url: str,
                                                   minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    embedded = NovaStore(tmp_path / "embedded", embeddings=minilm_onnx)
    hidden = fill(embedded)
    first = dump(embedded)
    embedded.close()
    assert kinds(first) == EVERY_KIND  # the fixture holds every kind, so each is compared below
    header = json.loads(first[0])
    assert header["users"] == ["alice", "bob"]

    pg = NovaStore(tmp_path / "pg", embeddings=minilm_onnx, database_url=pg_url)
    try:
        report = pg.import_(io.StringIO("\n".join(first) + "\n"))
        assert report.users == ("alice", "bob") and sum(report.inserted.values()) == len(first) - 1
        back = dump(pg)  # (before the reads below: recall counts accesses)
        assert back[1:] == first[1:]  # Postgres holds every row as SQLite did, byte for byte
        assert pg.flush(timeout=300)
        # read back on Postgres: valid and known times, history, decisions, blocks, items, search
        assert [f.object for f in pg.facts("alice", predicate="lives_in", as_of=T0 + timedelta(days=10))] == ["Lisbon"]
        assert [f.object for f in pg.facts("alice", predicate="lives_in")] == ["Berlin"]
        assert [f.object for f in pg.facts("alice", predicate="works_at")] == ["Globex"]
        assert {c.existing_object for c in pg.conflicts("alice")} >= {"Acme"}
        assert len(pg.decisions("alice")) >= 4 and len(pg.dead_letters("bob")) == 1
        assert sorted(b.content for b in pg.block_history("alice", "persona")) == [
            "Speaks Portuguese and German; prefers short answers.", "Speaks Portuguese; prefers short answers."]
        hits = NovaLangGraphStore(pg).search(("alice", "notes"), query="what is the alarm code?")
        assert [h.key for h in hits] == ["n1"]
        assert pg.search("Which city did they move to?", "alice", k=1, kinds=("episode",))[0].text == \
            "I moved to Berlin."
        with psycopg.connect(pg_url) as conn:  # the vectors are this store's own (pgvector), never imported
            embedded_ids = [r[0] for r in conn.execute("SELECT id FROM vectors WHERE kind = 'episode' AND id LIKE 'ep%'")]
            stored_ids = [r[0] for r in conn.execute("SELECT id FROM episodes")]
        assert sorted(embedded_ids) == sorted(stored_ids) and hidden["episode"] not in embedded_ids
        assert "locker" not in pg.context("what is my locker number?", "alice").text  # hidden stays hidden
    finally:
        pg.close()

    again = NovaStore(tmp_path / "again", embeddings=minilm_onnx)
    try:
        again.import_(io.StringIO("\n".join(back) + "\n"))
        assert dump(again)[1:] == first[1:]  # and from Postgres' file back to SQLite: nothing lost or changed
        restored = again.restore("alice", list(hidden.values()))
        assert sorted(i for ids in restored.values() for i in ids) == sorted(hidden.values())
    finally:
        again.close()


def test_a_bad_row_in_a_postgres_import_is_refused_and_nothing_is_written(pg_url: str, tmp_path: Path,
                                                                          minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """A row Postgres refuses (an id another user's row holds) fails alone: the import raises
    InvalidInputError with its line, and the transaction it aborted writes nothing."""
    pg = NovaStore(tmp_path / "pg", embeddings=minilm_onnx, database_url=pg_url)
    try:
        pg.add_turn("carol", "user", "Carol's own turn.")
        (taken,) = [e.id for e in pg.episodes("carol")]
        rows = [{"kind": "header", "format": "nova-memory", "version": 1, "users": ["dave"]}]
        for n, ident in enumerate(("ep_dave_1", taken)):
            rows.append({"kind": "episode", "row": {
                "id": ident, "user_id": "dave", "session_id": None, "role": "user", "content": f"Dave {n}",
                "ts": 1.7e9, "ingested_at": 1.7e9, "metadata": {}, "importance": 0.5, "access_count": 0,
                "last_access": None, "processed": 0, "source": "inferred"}})
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
        with pytest.raises(Exception, match="another user") as caught:
            pg.import_(io.StringIO(text))
        assert type(caught.value).__name__ == "InvalidInputError"
        assert pg.episodes("dave") == [] and [e.id for e in pg.episodes("carol")] == [taken]
        report = pg.import_(io.StringIO(text), dry_run=True)  # a dry run lists it and goes on
        assert report.error_count == 1 and report.inserted["episode"] == 1
    finally:
        pg.close()


def test_reindex_on_postgres_rebuilds_the_pgvector_index(pg_url: str, tmp_path: Path,
                                                         minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    pg = NovaStore(tmp_path / "pg", embeddings=minilm_onnx, database_url=pg_url)
    try:
        populate(pg)
        assert pg.flush(timeout=120)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            def vectors() -> dict[tuple[str, str], str]:
                return {(k, i): str(v) for k, i, v in conn.execute("SELECT kind, id, embedding::text FROM vectors")}

            before = vectors()
            conn.execute("UPDATE vectors SET embedding = array_fill(0::real, ARRAY[dims])::vector")  # a stale index, as after a model change
            assert all(set(v.strip("[]").split(",")) == {"0"} for v in vectors().values())
            rows = pg.reindex()
            after = vectors()
        assert rows >= len(before) and set(after) == set(before)  # (rows: expired facts too, never embedded)
        assert all(after[k] == before[k] for k in before)  # every vector written again, by this model
        assert pg.search("Which city did they move to?", "alice", k=1, kinds=("episode",))[0].text == \
            "I moved to Berlin."
    finally:
        pg.close()
