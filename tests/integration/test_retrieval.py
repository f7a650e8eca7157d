"""Hybrid retrieval (``store.retrieve`` / ``store.context``) on real MiniLM, Chroma and SQLite FTS5.

Covers: fusion finding what only one signal sees (a rare code only BM25 matches, a
paraphrase only the dense index matches), bi-temporal validity (``as_of``), tenancy,
FTS5 operator neutralisation, and the pure fusion helpers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.fusion import min_max, recency, rrf, saturating
from nova_memory_integrations.retrieval.lexical import match_expression, terms

USER = "alice"
CODE_TURN = ("Long day: we repainted the hallway, fixed the squeaky door hinge, argued about the paint colour "
             "for an hour, ordered pizza, and the courier dropped off parcel ZX-9000.")
PARAPHRASE_TURN = "My canine companion adores chasing tennis balls in the park."
PARAPHRASE_QUERY = "what does my dog like to play with?"
# Look-alike codes: close to "ZX-9000" for the embedding model, but sharing no FTS token with it.
LOOKALIKES = [f"Part number Z{a}-9{n:03d} is back in stock." for a in "ABCDEFGHJKLMNPQRSTUVWY" for n in (110, 470, 820)]
FILLER = [
    "I went hiking in the mountains last weekend with my sister.",
    "Can you recommend a good recipe for vegetable lasagna?",
    "The weather in Lisbon was sunny and warm all week.",
    "I'm reading a novel about space exploration and distant planets.",
    "My laptop battery drains too quickly lately, any tips?",
    "Remind me to call the plumber about the leaking kitchen sink.",
    "I started learning the violin this spring.",
    "My flight to Toronto got delayed by three hours.",
]


@pytest.fixture(scope="module")
def fusion_store(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Iterator[tuple[NovaStore, dict[str, str]]]:
    """One user's memory with a code buried in a long turn, look-alike codes and a paraphrase."""
    store = NovaStore(tmp_path_factory.mktemp("fusion") / "mem", embeddings=minilm)  # type: ignore[arg-type]
    store.add_turns([{"user_id": USER, "role": "user", "content": c} for c in LOOKALIKES + FILLER])
    ids = {
        "code": store.add_turn(USER, "user", CODE_TURN).id,
        "paraphrase": store.add_turn(USER, "user", PARAPHRASE_TURN).id,
    }
    store.flush()
    yield store, ids
    store.close()


def test_dense_alone_misses_the_code_but_fusion_finds_it_through_bm25(
    fusion_store: tuple[NovaStore, dict[str, str]],
) -> None:
    store, ids = fusion_store
    k_dense = store._search_config(None).dense_k
    # precondition: the dense index ranks the look-alike codes above the buried one
    dense_ids = [h.id for h in store.search("ZX-9000", USER, k=k_dense, kinds=("episode",))]
    assert ids["code"] not in dense_ids
    hits = store.retrieve("ZX-9000", USER, k=5)
    by_id = {h.id: h for h in hits}
    assert ids["code"] in by_id, [h.text for h in hits]
    scores = by_id[ids["code"]].scores
    assert "lexical" in scores and "dense" not in scores, scores
    assert hits[0].id == ids["code"]  # the only BM25 match outranks every dense-only look-alike


def test_paraphrase_without_shared_words_is_found_by_the_dense_index_only(
    fusion_store: tuple[NovaStore, dict[str, str]],
) -> None:
    store, ids = fusion_store
    assert not set(terms(PARAPHRASE_QUERY)) & set(terms(PARAPHRASE_TURN))  # precondition: no content word shared
    hits = store.retrieve(PARAPHRASE_QUERY, USER, k=5)
    by_id = {h.id: h for h in hits}
    assert ids["paraphrase"] in by_id, [h.text for h in hits]
    scores = by_id[ids["paraphrase"]].scores
    assert "dense" in scores and "lexical" not in scores, scores


def test_context_sources_say_which_signal_found_each_item(fusion_store: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = fusion_store
    code = store.context("ZX-9000", USER, budget_tokens=400)
    item = next(s for s in code.sources if s.id == ids["code"])
    assert "lexical" in item.scores and "dense" not in item.scores
    para = store.context(PARAPHRASE_QUERY, USER, budget_tokens=400)
    item = next(s for s in para.sources if s.id == ids["paraphrase"])
    assert "dense" in item.scores and "lexical" not in item.scores


@pytest.mark.parametrize(("query", "key", "says", "not_says"), [
    ("ZX-9000", "code", "keyword match (BM25)", "semantic match"),
    (PARAPHRASE_QUERY, "paraphrase", "semantic match", "keyword match (BM25)"),
])
def test_context_reason_names_only_the_signals_that_found_the_item(
    fusion_store: tuple[NovaStore, dict[str, str]], query: str, key: str, says: str, not_says: str,
) -> None:
    store, ids = fusion_store
    item = next(s for s in store.context(query, USER, budget_tokens=400).sources if s.id == ids[key])
    assert says in item.reason
    assert not_says not in item.reason, f"{item.reason!r} but scores are {item.scores}"


def test_retrieve_returns_both_the_bm25_only_and_the_dense_only_hit(
    fusion_store: tuple[NovaStore, dict[str, str]],
) -> None:
    store, ids = fusion_store
    found = {h.id for q in ("ZX-9000", PARAPHRASE_QUERY) for h in store.retrieve(q, USER, k=3)}
    assert {ids["code"], ids["paraphrase"]} <= found


def test_fact_found_by_bm25_over_facts(store: NovaStore) -> None:
    store.add_fact(USER, "user", "favorite_food", "ramen")
    decision = store.add_fact(USER, "user", "bike_lock_combination", "QX-7731")
    hits = store.retrieve("QX-7731", USER, k=5, kinds=("fact",))
    hit = next(h for h in hits if h.id == decision.fact_id)
    assert "fact_lexical" in hit.scores and hit.fact is not None and hit.fact.object == "QX-7731"


# -- bi-temporal validity ---------------------------------------------------------------------------
T0 = datetime(2023, 1, 1, tzinfo=timezone.utc)
T_INVALID = datetime(2024, 1, 1, tzinfo=timezone.utc)


def test_fact_invalidated_before_as_of_is_not_returned_as_current(store: NovaStore) -> None:
    ep = store.add_turn(USER, "user", "I live in Paris now.", timestamp=T0)
    fid = store.add_fact(USER, "user", "lives_in", "Paris", valid_from=T0, source_episode_ids=[ep.id]).fact_id
    store.add_fact(USER, "user", "works_at", "Acme", valid_from=T0)
    assert fid is not None
    store.invalidate_fact(USER, fid, at=T_INVALID)
    query = "where does the user live? Paris"
    after = T_INVALID + timedelta(days=30)
    before = T_INVALID - timedelta(days=30)

    def paris(items: object) -> list[object]:
        return [i for i in items if getattr(i, "kind", "") == "fact" and "Paris" in getattr(i, "text", "")]  # type: ignore[attr-defined]

    assert not paris(store.retrieve(query, USER, k=20, as_of=after))
    assert not paris(store.retrieve(query, USER, k=20))  # now
    ctx = store.context(query, USER, as_of=after, budget_tokens=500)
    assert not paris(ctx.sources)
    assert "lives in Paris" not in ctx.text
    # still answerable for a moment when it held, with its validity window
    hist = paris(store.retrieve(query, USER, k=20, as_of=before))
    assert hist
    ctx = store.context(query, USER, as_of=before, budget_tokens=500)
    item = paris(ctx.sources)[0]
    assert item.valid_from == T0 and item.valid_to == T_INVALID  # type: ignore[attr-defined]
    assert ep.id in item.provenance  # type: ignore[attr-defined]


def test_superseded_value_is_not_current_but_is_history(store: NovaStore) -> None:
    store.add_fact(USER, "user", "lives_in", "Paris", valid_from=T0)
    store.add_fact(USER, "user", "lives_in", "Berlin", valid_from=T_INVALID)
    query = "which city does the user live in?"
    now_texts = [s.text for s in store.context(query, USER, budget_tokens=500).sources if s.kind == "fact"]
    assert any("Berlin" in t for t in now_texts) and not any("Paris" in t for t in now_texts)
    then = [s.text for s in store.context(query, USER, budget_tokens=500, as_of=T0 + timedelta(days=10)).sources
            if s.kind == "fact"]
    assert any("Paris" in t for t in then) and not any("Berlin" in t for t in then)


# -- tenancy ----------------------------------------------------------------------------------------
def test_retrieve_and_context_never_return_another_users_items(store: NovaStore) -> None:
    for uid, city, code in (("alice", "Lisbon", "AL-1111"), ("bob", "Oslo", "BO-2222")):
        store.add_turns([
            {"user_id": uid, "role": "user", "content": f"I moved to {city} last year; my locker code is {code}."},
            {"user_id": uid, "role": "user", "content": "I love hiking and my dog loves tennis balls."},
        ])
        store.add_fact(uid, "user", "lives_in", city)
        store.add_rule(uid, "the user asks about travel", f"mention {city} first")
    bob_ids = {e.id for e in store.episodes("bob")} | {f.id for f in store.facts("bob")} | {
        r.id for r in store.rules("bob")}
    for query in ("Where do I live? Oslo or Lisbon?", "BO-2222", "hiking dog tennis balls", "travel plans"):
        hits = store.retrieve(query, "alice", k=50)
        assert hits and not {h.id for h in hits} & bob_ids
        ctx = store.context(query, "alice", budget_tokens=2000, format="json")
        assert not {s.id for s in ctx.sources} & bob_ids
        assert "Oslo" not in ctx.text and "BO-2222" not in ctx.text
    assert store.retrieve("anything at all", "carol", k=5) == []
    assert store.context("anything at all", "carol").text == ""


# -- FTS5 operators in user text -------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    'NEAR(a b) OR "x" *',
    'AND OR NOT',
    '"unbalanced quote',
    "content:secret",
    "^start + end -minus",
    "(((nested)))",
    "tennis* NEAR/2 balls",
    "what's the user's favourite O'Reilly book?",
    "日本語のテキスト",
])
def test_fts_operators_in_queries_are_neutralised(store: NovaStore, query: str) -> None:
    store.add_turn(USER, "user", "Tennis balls NEAR the start of content: an O'Reilly book.")
    store.add_fact(USER, "user", "favorite_book", "an O'Reilly book")
    store.retrieve(query, USER, k=5)  # must not raise (an FTS5 syntax error would)
    store.context(query, USER, budget_tokens=200)


def test_match_expression_quotes_every_term() -> None:
    expr = match_expression('NEAR(a b) OR "x" * column:value tennis*')
    assert expr is not None
    for part in expr.split(" OR "):
        assert part.startswith('"') and part.endswith('"'), part
    assert '"near"' in expr and '"tennis"' in expr and "*" not in expr and ":" not in expr
    assert match_expression("the a of * ( )") is None  # only stopwords / operators
    assert match_expression("") is None


def test_terms_drops_stopwords_and_dedupes() -> None:
    assert terms("The cat and THE cat's toys, I think") == ["cat", "toys"]
    assert len(terms(" ".join(f"w{i}" for i in range(100)))) == 24


# -- fusion helpers ---------------------------------------------------------------------------------
def test_rrf_contributions_per_signal() -> None:
    out = rrf({"dense": ["a", "b"], "lexical": ["b", "c"], "off": ["a"]}, {"dense": 1.0, "lexical": 0.5}, k=60)
    assert out["a"] == {"dense": pytest.approx(1 / 61)}
    assert out["b"] == {"dense": pytest.approx(1 / 62), "lexical": pytest.approx(0.5 / 61)}
    assert out["c"] == {"lexical": pytest.approx(0.5 / 62)}
    fused = {key: sum(v.values()) for key, v in out.items()}
    assert max(fused, key=fused.__getitem__) == "b"  # found by both signals
    assert rrf({}, {}) == {}


def test_recency_half_life() -> None:
    now = datetime(2024, 6, 1, tzinfo=timezone.utc)
    assert recency(now, now, 30) == 1.0
    assert recency(now - timedelta(days=30), now, 30) == pytest.approx(0.5)
    assert recency(now - timedelta(days=60), now, 30) == pytest.approx(0.25)
    assert recency(now + timedelta(days=5), now, 30) == 1.0  # the future counts as now
    assert recency(None, now, 30) == 0.0


def test_min_max_and_saturating() -> None:
    assert min_max([]) == []
    assert min_max([3.0, 3.0]) == [1.0, 1.0]
    assert min_max([1.0, 2.0, 3.0]) == [0.0, 0.5, 1.0]
    assert min_max([-2.0, 2.0]) == [0.0, 1.0]
    assert saturating(0) == 0.0
    values = [saturating(n) for n in (1, 2, 10, 1000)]
    assert values == sorted(values) and all(0 < v < 1 for v in values)
    assert math.isclose(saturating(1, 5.0), math.log(2) / math.log(7))



# -- scaling of the per-query SQLite lookups (no timing: SQLite VM steps are counted) ----------------
def _vm_steps(store: NovaStore, fn: object) -> int:
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    conn = store.components.db._conn
    conn.set_progress_handler(tick, 100)  # called every 100 VM instructions
    try:
        fn()  # type: ignore[operator]
    finally:
        conn.set_progress_handler(None, 0)
    return steps[0] * 100


@pytest.mark.parametrize("lookup", ["get_episodes", "neighbours"])
def test_lookups_by_id_do_not_scan_all_of_a_users_episodes(store: NovaStore, lookup: str) -> None:
    """Fetching 60 candidates by id must cost the same with 500 or 20,000 episodes stored.

    Context assembly calls these on every query; a plan that walks the ``user_id`` index
    instead of the unique ``id`` index grows linearly with the user's memory.
    """
    from nova_memory_integrations.memory.facts import new_id
    from nova_memory_integrations.types import Episode

    now = datetime.now(timezone.utc)
    steps: list[int] = []
    total = 0
    for size in (500, 20_000):
        eps = [Episode(id=new_id("ep"), user_id=USER, session_id=f"s{i // 20}", role="user",
                       content=f"note {i} about topic {i % 97}", timestamp=now + timedelta(seconds=total + i),
                       ingested_at=now) for i in range(size - total)]
        store.components.db.insert_episodes(eps)  # SQLite only: this test is about SQL plans, not vectors
        total = size
        ids = [e.id for e in eps[:: max(1, len(eps) // 60)]][:60]
        method = getattr(store.components.db, lookup)
        steps.append(_vm_steps(store, lambda: method(USER, ids)))  # noqa: B023
    assert steps[1] < 3 * steps[0], f"{lookup}: {steps[0]} VM steps at 500 episodes, {steps[1]} at 20,000"


# -- speakers ----------------------------------------------------------------------------------------
def test_named_speakers_ignores_generic_roles() -> None:
    from nova_memory_integrations.retrieval.signals import named_speakers

    roles = {"alice", "bob", "user", "assistant", "mary ann"}
    assert named_speakers("What did Alice paint?", roles) == {"alice"}
    assert named_speakers("Did Mary Ann and Bob's team win?", roles) == {"mary ann", "bob"}
    assert named_speakers("what did the user say to the assistant?", roles) == set()


def test_turns_of_the_speaker_named_in_the_query_are_boosted(store: NovaStore) -> None:
    from nova_memory_integrations.retrieval.search_config import SearchConfig

    store.add_turns([
        {"user_id": USER, "role": "Bob", "content": "Alice, what did you paint? Show me your paintings!", "session_id": "s1"},
        {"user_id": USER, "role": "Alice", "content": "I painted the old lighthouse at dusk.", "session_id": "s1"},
        {"user_id": USER, "role": "user", "content": "I painted my garden fence green.", "session_id": "s2"},
    ])
    config = SearchConfig.preset("balanced")
    cands = store._recall.retrieve("What did Alice paint?", USER, k=10, config=config, kinds=("episode",)).hits
    by_role = {c.episode.role: c for c in cands if c.episode is not None}
    alice = by_role["alice"]
    priors = {"speaker", "recency", "importance", "access", "confidence"}  # added after the boost
    base = sum(v for s, v in alice.contributions.items() if s not in priors)
    assert alice.contributions["speaker"] == pytest.approx(config.weights.speaker * base)
    assert "speaker" not in by_role["bob"].contributions and "speaker" not in by_role["user"].contributions
    off = config.model_copy(update={"weights": config.weights.model_copy(update={"speaker": 0.0})})
    plain = store._recall.retrieve("What did Alice paint?", USER, k=10, config=off, kinds=("episode",)).hits
    assert all("speaker" not in c.contributions for c in plain)
