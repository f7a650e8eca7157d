"""forget(user) and delete(ids) leave no trace: SQLite rows, FTS5 indexes, history,
dead letters, the raw database file and the Chroma collections."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from nova_memory_integrations import NovaStore
from nova_memory_integrations.types import Episode

SECRET_USER = "user-qzx-7431"
MARK = "qqzzqvmarker"  # a token no tokenizer stems or splits
T0 = datetime(2024, 4, 2, tzinfo=timezone.utc)


def _failing_on(mark: str) -> Any:
    def run(batch: Sequence[Episode]) -> list[list[Any]]:
        raise RuntimeError(f"fake LLM failed on {mark}")

    return run


def _fill(store: NovaStore, user: str, mark: str) -> None:
    store.add_turns([
        {"user_id": user, "role": "user", "content": f"I live in Lisbon and my codeword is {mark}.",
         "timestamp": T0, "metadata": {"note": mark}},
        {"user_id": user, "role": "user", "content": f"I moved to Porto, {mark} still applies.", "timestamp": T0},
    ])
    store.consolidate(user)
    store.add_fact(user, "user", "favorite_word", mark)
    store.add_rule(user, f"user mentions {mark}", f"reply with {mark}")
    store.add_turn(user, "user", f"Dead letter {mark} pending.")
    store._consolidation.consolidator.run(user, _failing_on(mark))
    store.flush()


def _raw_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def _fts_hits(con: sqlite3.Connection, mark: str) -> int:
    n = 0
    for table in ("episodes_fts", "facts_fts"):
        n += con.execute(f"SELECT COUNT(*) FROM {table} WHERE {table} MATCH ?", (mark,)).fetchone()[0]
        # the FTS5 shadow tables themselves (segments hold the terms as raw bytes)
        for (blob,) in con.execute(f"SELECT block FROM {table}_data"):
            n += bool(blob and mark.encode() in bytes(blob))
    return int(n)


def test_forget_leaves_nothing_of_the_user(store: NovaStore) -> None:
    _fill(store, SECRET_USER, MARK)
    _fill(store, "bystander", "keepsakeword")
    db_path = store.path / "nova.sqlite3"
    assert MARK.encode() in _raw_bytes(db_path)
    assert store.components.vectors.get_user_ids("episode", SECRET_USER)

    counts = store.forget(SECRET_USER)
    assert counts["episodes"] == 3 and counts["facts"] >= 3 and counts["dead_letters"] == 1

    con = sqlite3.connect(db_path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        if "user_id" in cols:
            assert con.execute(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", (SECRET_USER,)).fetchone()[0] == 0
    assert _fts_hits(con, MARK) == 0
    assert _fts_hits(con, "keepsakeword") > 0  # the other user's index is intact
    con.close()
    raw = _raw_bytes(db_path)
    assert MARK.encode() not in raw and SECRET_USER.encode() not in raw
    assert b"keepsakeword" in raw
    # Chroma: the user's collections are gone; no vector, document or metadata of theirs elsewhere
    for kind in ("episode", "fact", "rule"):
        assert store.components.vectors.get_user_ids(kind, SECRET_USER) == []  # type: ignore[arg-type]
        assert store.components.vectors.collection(kind, SECRET_USER) is None  # type: ignore[arg-type]
    left = store.components.vectors.collections()
    assert {c.metadata["user_id"] for c in left} == {"bystander"}
    for col in left:
        everything = col.get(include=["documents", "metadatas"])
        assert all(MARK not in (d or "") for d in everything["documents"])
        assert all(m.get("user_id") != SECRET_USER for m in everything["metadatas"])
    assert store.search(MARK, SECRET_USER, k=5) == []
    assert store.components.graph.graph(SECRET_USER).number_of_edges() == 0
    assert store.facts("bystander", predicate="favorite_word")[0].object == "keepsakeword"
    assert store.stats(SECRET_USER)["episodes"] == 0


def test_delete_ids_removes_rows_history_fts_and_vectors(store: NovaStore) -> None:
    ep_keep = store.add_turn("alice", "user", "I like green tea.", timestamp=T0)
    ep_gone = store.add_turn("alice", "user", f"My locker code is {MARK}.", timestamp=T0)
    store.consolidate("alice")
    first = store.add_fact("alice", "user", "lives_in", f"{MARK}ville", valid_from=T0)
    second = store.add_fact("alice", "user", "lives_in", "Porto")  # closes the first: a lineage with history
    rule = store.add_rule("alice", f"user asks about {MARK}", "refuse")
    dead = store.add_turn("alice", "user", "this turn ends in a dead letter")
    store._consolidation.consolidator.run("alice", _failing_on(MARK))
    assert store.dead_letters("alice")[0]["episode_ids"] == [dead.id]
    store.flush()
    fact_ids = [f.id for f in store.fact_history("alice", first.fact_id or "")]
    assert len(fact_ids) >= 2

    # what consolidation read from the gone turn (the locker code as a state told in passing) goes with it
    read = [f.id for f in store.facts("alice") if MARK in f.object and f.id != first.fact_id]
    fact_ids += [f.id for r in read for f in store.fact_history("alice", r)]
    removed = store.delete("alice", [ep_gone.id, first.fact_id or "", *read, rule.id, dead.id, "no-such-id"])
    assert set(removed["episodes"]) == {ep_gone.id, dead.id} and removed["rules"] == [rule.id]
    assert set(fact_ids) <= set(removed["facts"])
    assert second.fact_id not in removed["facts"]
    assert store.dead_letters("alice") == []
    events = store.components.db.query("SELECT fact_id, replaced_fact_id, object FROM fact_events WHERE user_id = 'alice'")
    assert all(e[0] not in fact_ids and e[1] not in fact_ids and MARK not in e[2] for e in events)
    con = sqlite3.connect(store.path / "nova.sqlite3")
    assert _fts_hits(con, MARK) == 0
    con.close()
    assert MARK.encode() not in _raw_bytes(store.path / "nova.sqlite3")
    assert [e.id for e in store.episodes("alice")] == [ep_keep.id]
    for kind, ids in (("episode", [ep_gone.id, dead.id]), ("fact", fact_ids), ("rule", [rule.id])):
        assert store.components.vectors.collection(kind, "alice").get(ids=ids)["ids"] == []  # type: ignore[arg-type, union-attr]
    assert all(MARK not in h.text for h in store.search("locker code", "alice", k=5, kinds=("episode", "fact",
                                                                                        "rule")))
