"""The NovaStore engine on real SQLite, real Chroma and real MiniLM embeddings."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import (
    InvalidInputError,
    NovaConfig,
    NovaStore,
    StoreClosedError,
)

pytestmark = pytest.mark.both_backends  # the store fixtures run on SQLite and on Postgres (conftest)

T0 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)


def test_add_turn_returns_durable_episode(store: NovaStore, separate: Any) -> None:
    ep = store.add_turn("alice", "user", "I adopted a cat called Miso.", session_id="s1", timestamp=T0,
                        metadata={"channel": "web"})
    assert ep.id.startswith("ep_") and ep.user_id == "alice" and ep.session_id == "s1"
    assert ep.timestamp == T0 and ep.ingested_at.tzinfo is not None and not ep.processed
    # durable: visible through a separate connection right away
    assert separate(store).execute("SELECT content FROM episodes WHERE id = ?", (ep.id,))[0][0].startswith("I adopted")


def test_search_right_after_add_sees_the_turn(store: NovaStore) -> None:
    store.add_turn("alice", "user", "My dentist appointment is on Friday at noon.")
    hits = store.search("when is the dentist?", "alice", k=3)
    assert hits and "dentist" in hits[0].text


def test_persistence_across_reopen(tmp_path: Path, minilm: object) -> None:
    path = tmp_path / "data"
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        s.add_turn("bob", "user", "I live in Lisbon and I work at Acme.", timestamp=T0)
        s.consolidate("bob")
        s.add_rule("bob", "user asks for code", "answer in Rust")
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        assert [e.content for e in s.episodes("bob")] == ["I live in Lisbon and I work at Acme."]
        assert {(f.predicate, f.object) for f in s.facts("bob")} >= {("lives_in", "Lisbon"), ("works_at", "Acme")}
        assert s.search("where does he live?", "bob", k=1)[0].kind in {"episode", "fact"}
        assert s.rules("bob", "can you write some code for me?")[0].action == "answer in Rust"


def test_concurrent_writers_and_reader(store: NovaStore) -> None:
    errors: list[BaseException] = []
    per_thread = 40

    def writer(n: int) -> None:
        try:
            for i in range(per_thread):
                store.add_turn("carol", "user", f"writer {n} note {i}: the sky is clear today", session_id=f"w{n}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    stop = threading.Event()
    searches = [0]

    def reader() -> None:
        try:
            while not stop.is_set():
                store.search("sky note", "carol", k=5)
                searches[0] += 1
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    r.join()
    assert not errors
    assert searches[0] > 0
    assert store.flush(timeout=60)
    assert len(store.episodes("carol")) == 4 * per_thread
    assert store.stats("carol")["episodes"] == 4 * per_thread
    assert len(store.components.vectors.get_user_ids("episode", "carol")) == 4 * per_thread
    for n in range(4):
        assert len(store.episodes("carol", session_id=f"w{n}")) == per_thread


def test_two_users_never_see_each_other(store: NovaStore) -> None:
    store.add_turn("u1", "user", "My favorite color is blue and I live in Oslo.", timestamp=T0)
    store.add_turn("u2", "user", "My favorite color is red and I live in Rome.", timestamp=T0)
    store.consolidate()
    for uid, own, other in (("u1", "Oslo", "Rome"), ("u2", "Rome", "Oslo")):
        texts = [h.text for h in store.search("where do I live and what color do I like", uid, k=20)]
        assert any(own in t for t in texts) and not any(other in t for t in texts)
        assert all(f.user_id == uid for f in store.facts(uid, include_history=True))
        assert {f.object for f in store.facts(uid, predicate="lives_in")} == {own}
        assert all(e.user_id == uid for e in store.episodes(uid))
    ep_u2 = store.episodes("u2")[0]
    assert store.get_episodes("u1", [ep_u2.id]) == []


def test_bitemporal_blue_to_green(store: NovaStore) -> None:
    t_blue, t_green = T0, T0 + timedelta(days=150)
    store.add_turn("dana", "user", "My favorite color is blue.", timestamp=t_blue)
    store.consolidate("dana")
    believed_blue_until = datetime.now(timezone.utc)
    store.add_turn("dana", "user", "My favorite color is green now.", timestamp=t_green)
    result = store.consolidate("dana")
    assert result.updated == 1 and result.added == 0

    before = store.facts("dana", predicate="favorite_color", as_of=t_blue + timedelta(days=30))
    after = store.facts("dana", predicate="favorite_color", as_of=t_green + timedelta(days=1))
    assert [f.object for f in before] == ["blue"]
    assert [f.object for f in after] == ["green"]
    assert [f.object for f in store.facts("dana", predicate="favorite_color")] == ["green"]

    history = store.facts("dana", predicate="favorite_color", include_history=True)
    assert [(f.object, f.valid_from, f.valid_to) for f in history] == [("blue", t_blue, t_green), ("green", t_green, None)]
    # belief time: before the second consolidation we believed blue was (still) valid
    believed = store.facts("dana", predicate="favorite_color", known_at=believed_blue_until,
                           as_of=t_green + timedelta(days=1))
    assert [f.object for f in believed] == ["blue"]
    # nothing deleted: the blue lineage has its believed-open version and its closed version
    versions = store.fact_history("dana", history[0].id)
    assert len(versions) == 2 and sum(v.expired_at is None for v in versions) == 1


def test_repeat_reinforces_without_duplicates(store: NovaStore) -> None:
    for day in range(4):
        store.add_turn("erin", "user", "I love hiking.", timestamp=T0 + timedelta(days=day))
    res = store.consolidate("erin")
    assert res.added == 1 and res.noop == 3
    (fact,) = store.facts("erin", predicate="likes")
    assert fact.occurrence_count == 4 and len(fact.provenance) == 4
    assert 0.8 < fact.confidence <= 0.95
    for _ in range(30):
        store.add_fact("erin", "user", "likes", "hiking")
    capped = store.facts("erin", predicate="likes")[0].confidence
    assert 0.9499 < capped <= 0.95  # approaches the cap with diminishing returns, never above it


def test_multi_valued_predicates_accumulate(store: NovaStore) -> None:
    store.add_fact("fay", "user", "likes", "sushi", valid_from=T0)
    store.add_fact("fay", "user", "likes", "jazz", valid_from=T0)
    assert {f.object for f in store.facts("fay", predicate="likes")} == {"sushi", "jazz"}


def test_consolidate_only_processes_new_episodes(store: NovaStore) -> None:
    store.add_turn("gil", "user", "I work at Initech.", timestamp=T0)
    assert store.consolidate("gil").episodes_processed == 1
    assert store.consolidate("gil").episodes_processed == 0
    assert all(e.processed for e in store.episodes("gil"))


def test_negation_closes_validity(store: NovaStore) -> None:
    store.add_turn("hal", "user", "I live in Madrid.", timestamp=T0)
    store.add_turn("hal", "user", "I no longer live in Madrid.", timestamp=T0 + timedelta(days=10))
    res = store.consolidate("hal")
    assert res.added == 1 and res.invalidated == 1
    assert store.facts("hal", predicate="lives_in") == []
    assert [f.object for f in store.facts("hal", predicate="lives_in", as_of=T0 + timedelta(days=1))] == ["Madrid"]


def test_traverse_follows_graph_in_time(store: NovaStore) -> None:
    store.add_fact("ivy", "user", "sister_name", "Anna", valid_from=T0)
    store.add_fact("ivy", "Anna", "lives_in", "Berlin", valid_from=T0)
    store.add_fact("ivy", "Berlin", "located_in", "Germany", valid_from=T0)
    two = {f.object for f in store.traverse("ivy", "user", max_hops=2)}
    assert two == {"Anna", "Berlin"}
    assert {f.object for f in store.traverse("ivy", "user", max_hops=3)} == {"Anna", "Berlin", "Germany"}
    assert store.traverse("ivy", "user", as_of=T0 - timedelta(days=1)) == []
    assert store.traverse("other", "user") == []


def test_rules_match_by_similarity_and_count_usage(store: NovaStore) -> None:
    store.add_rule("jo", "the user asks for a recipe", "list ingredients in metric units", 0.9)
    store.add_rule("jo", "the user wants travel advice", "mention train options first", 0.7)
    (top, *_) = store.rules("jo", "Could you give me a recipe for pancakes?", k=1)
    assert top.action == "list ingredients in metric units"
    assert store.rules("jo")[0].usage_count == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"user_id": "", "role": "user", "content": "hi"}, "user_id"),
        ({"user_id": None, "role": "user", "content": "hi"}, "user_id"),
        ({"user_id": "k", "role": "user", "content": ""}, "content"),
        ({"user_id": "k", "role": "user", "content": "   "}, "content"),
        ({"user_id": "k", "role": "user", "content": 42}, "content"),
        ({"user_id": "k", "role": "user", "content": "x" * 1_000_000}, "limit"),
        ({"user_id": "k", "role": "user", "content": "hi", "timestamp": datetime(2024, 1, 1)}, "naive"),
        ({"user_id": "k", "role": "user", "content": "hi", "timestamp": "yesterday"}, "ISO"),
        ({"user_id": "k", "role": "user", "content": "hi", "metadata": {"f": object()}}, "JSON"),
        ({"user_id": "k", "role": "user", "content": "hi", "metadata": ["not", "a", "dict"]}, "mapping"),
        ({"user_id": "k", "role": "", "content": "hi"}, "role"),
    ],
)
def test_bad_input_is_rejected_and_loses_nothing(store: NovaStore, kwargs: dict[str, object], match: str) -> None:
    store.add_turn("k", "user", "I keep my notes in Obsidian.")
    with pytest.raises(InvalidInputError, match=match):
        store.add_turn(**kwargs)  # type: ignore[arg-type]
    assert [e.content for e in store.episodes("k")] == ["I keep my notes in Obsidian."]


def test_add_turns_is_all_or_nothing(store: NovaStore) -> None:
    with pytest.raises(InvalidInputError):
        store.add_turns([{"user_id": "m", "role": "user", "content": "ok"},
                         {"user_id": "m", "role": "user", "content": ""}])
    assert store.episodes("m") == []
    eps = store.add_turns([{"user_id": "m", "role": "user", "content": f"turn {i}"} for i in range(5)])
    assert [e.content for e in store.episodes("m")] == [e.content for e in eps]


def test_reads_require_a_user(store: NovaStore) -> None:
    for call in (lambda: store.search("x", ""), lambda: store.facts(""), lambda: store.episodes(None)):  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            call()


def test_closed_store_raises(tmp_path: Path, minilm: object) -> None:
    s = NovaStore(tmp_path / "c", embeddings=minilm)  # type: ignore[arg-type]
    s.close()
    s.close()  # idempotent
    with pytest.raises(StoreClosedError):
        s.add_turn("a", "user", "hello")


def test_reindex_rebuilds_vectors_from_sqlite(store: NovaStore) -> None:
    store.add_turns([{"user_id": "n", "role": "user", "content": f"I visited city number {i}"} for i in range(12)])
    store.add_fact("n", "user", "lives_in", "Porto")
    store.flush()
    store.components.vectors.reset()
    assert store.components.vectors.count("episode") == 0
    assert store.reindex() == 13
    assert len(store.components.vectors.get_user_ids("episode", "n")) == 12
    assert store.search("Porto", "n", kinds=("fact",))[0].fact.object == "Porto"  # type: ignore[union-attr]


def test_unindexed_rows_recovered_on_open(tmp_path: Path, minilm: object) -> None:
    path = tmp_path / "r"
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        s.add_turn("o", "user", "I play the cello in an orchestra.")
        s.flush()
        s.components.db.reset_indexed()  # simulate a crash before indexing
        s.components.vectors.reset()
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        assert s.search("which instrument?", "o", k=1)[0].text.startswith("I play the cello")


def test_config_from_partial_toml(tmp_path: Path) -> None:
    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text('[facts]\nconfidence_cap = 0.9\n[consolidation]\nmode = "immediate"\n')
    cfg = NovaConfig.from_toml(cfg_file)
    assert cfg.facts.confidence_cap == 0.9 and cfg.consolidation.mode == "immediate"
    assert cfg.embeddings.batch_size == NovaConfig().embeddings.batch_size
    bad = tmp_path / "bad.toml"
    bad.write_text('[facts]\nconfidence_cap = "high"\n')
    from nova_memory_integrations import ConfigError

    with pytest.raises(ConfigError):
        NovaConfig.from_toml(bad)


def test_example_config_is_valid() -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    assert NovaConfig.from_toml(example) == NovaConfig()


def test_immediate_mode_consolidates_inside_the_turn(make_store: object) -> None:
    cfg = NovaConfig.from_dict({"consolidation": {"mode": "immediate"}})
    s = make_store(config=cfg)  # type: ignore[operator]
    s.add_turn("p", "user", "I work at Globex.")
    assert [f.object for f in s.facts("p", predicate="works_at")] == ["Globex"]


def test_background_mode_consolidates_off_thread(make_store: object) -> None:
    cfg = NovaConfig.from_dict({"consolidation": {"mode": "background", "interval_seconds": 60,
                                                  "debounce_seconds": 0.05}})
    s = make_store(config=cfg)  # type: ignore[operator]
    s.add_turn("q", "user", "I live in Quito.")
    import time

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not s.facts("q", predicate="lives_in"):
        time.sleep(0.05)
    assert [f.object for f in s.facts("q", predicate="lives_in")] == ["Quito"]
    s.add_turn("q", "user", "I work at Umbrella.")
    s.close()  # clean shutdown runs the last pass
    assert s._worker.running is False
    reopened = make_store(config=NovaConfig())  # type: ignore[operator]
    assert [f.object for f in reopened.facts("q", predicate="works_at")] == ["Umbrella"]


def test_fact_added_and_superseded_in_one_batch_is_indexed_once(store: NovaStore) -> None:
    store.add_turns([
        {"user_id": "r", "role": "user", "content": "My favorite color is blue.", "timestamp": T0},
        {"user_id": "r", "role": "user", "content": "My favorite color is green.", "timestamp": T0 + timedelta(days=1)},
    ])
    store.consolidate("r")
    assert store.flush(timeout=60) and store.components.indexer.last_error is None
    ids = set(store.components.vectors.get_user_ids("fact", "r"))
    current = {f.id for f in store.facts("r", include_history=True)}
    assert ids == current  # expired versions left the index, believed ones are in it


def test_named_speakers_are_the_subject_of_their_first_person_facts(store: NovaStore) -> None:
    store.add_turn("chat", "Caroline", "I live in Boston.", timestamp=T0)
    store.add_turn("chat", "Melanie", "I live in Denver.", timestamp=T0)
    store.consolidate("chat")
    lives = {(f.subject, f.object) for f in store.facts("chat", predicate="lives_in")}
    assert lives == {("caroline", "Boston"), ("melanie", "Denver")}


@pytest.mark.parametrize(("subject", "predicate", "obj"), [("user", "!!!", "x"), ("...", "likes", "tea"), ("user", "likes", "  ")])
def test_add_fact_rejects_triples_without_content(store: NovaStore, subject: str, predicate: str, obj: str) -> None:
    store.add_fact("s", "user", "likes", "tea")
    with pytest.raises(InvalidInputError):
        store.add_fact("s", subject, predicate, obj)
    assert [(f.predicate, f.object) for f in store.facts("s")] == [("likes", "tea")]


def test_expired_fact_versions_are_not_requeued_on_reopen(tmp_path: Path, minilm: object) -> None:
    path = tmp_path / "e"
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        s.add_fact("t", "user", "lives_in", "Oslo", valid_from=T0)
        s.add_fact("t", "user", "lives_in", "Bergen", valid_from=T0 + timedelta(days=5))
        assert s.flush(timeout=60)
        unindexed = s.components.db.query("SELECT COUNT(*) FROM facts WHERE user_id = 't' AND indexed = 0")[0][0]
        assert unindexed == 0  # the expired version left the index and is flagged as handled
    with NovaStore(path, embeddings=minilm) as s:  # type: ignore[arg-type]
        assert s.components.indexer.recover() == 0


@pytest.mark.sqlite_only("counts Chroma calls")
def test_a_backlog_is_indexed_in_larger_cycles_with_one_chroma_call_per_user_and_chunk(
    make_store: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nova_memory_integrations.storage import vectors as vector_module

    monkeypatch.setattr(vector_module, "_UPSERT_ROWS", 40)  # a user's rows go to Chroma in chunks
    config = NovaConfig.from_dict({"indexing": {"batch_size": 8, "max_batch_size": 120, "max_wait_ms": 0}})
    store = make_store(config=config)  # type: ignore[operator]
    cycles: list[int] = []
    calls: list[str] = []  # the user of each Chroma upsert call
    index, run = store.components.indexer._index, store.components.vectors._run

    def count_cycle(batch: list[tuple[str, str, str]]) -> None:
        cycles.append(len(batch))
        index(batch)

    def count_call(kind: str, user_id: str, op: object, default: object, **kw: object) -> object:
        if kw.get("what") == "upsert":
            calls.append(user_id)
        return run(kind, user_id, op, default, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store.components.indexer, "_index", count_cycle)
    monkeypatch.setattr(store.components.vectors, "_run", count_call)
    turns = [{"user_id": f"u{i % 3}", "role": "user", "content": f"I packed item number {i} for the trip"}
             for i in range(240)]
    store.add_turns(turns)  # one backlog of 240 rows, three users interleaved
    store.flush()
    assert sum(cycles) == 240 and max(cycles) == 120 and len(cycles) <= 4, cycles
    # a 120-row cycle holds 40 rows of each user: one call each; the first, small cycle one call per user
    assert len(calls) <= 3 * len(cycles), (cycles, calls)
    for user in ("u0", "u1", "u2"):
        assert len(store.components.vectors.get_user_ids("episode", user)) == 80
    assert store.search("item number 7", "u1", k=1)[0].text == "I packed item number 7 for the trip"
    # one user's 90 rows in one cycle: chunks of 40 rows
    calls.clear()
    store.add_turns([{"user_id": "u3", "role": "user", "content": f"Checklist line {i}"} for i in range(90)])
    store.flush()
    assert calls.count("u3") == 3 and len(store.components.vectors.get_user_ids("episode", "u3")) == 90
    # a short queue keeps small cycles: a reader waits for little
    cycles.clear()
    store.add_turn("u0", "user", "One more thing to pack: the charger.")
    store.flush()
    assert cycles == [1]
