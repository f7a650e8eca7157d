"""A turn brought in as the neighbour of a match keeps its own similarity to the query.

Recall passes part of a turn's score to the turns just before and after it. A neighbour
that was in neither the dense nor the keyword list used to rank on that passed share
alone, so a neighbour that answers the question tied with one about something else.
Here only one turn is listed (``dense_k = lexical_k = 1``, no snippets); its two neighbours get the
same share, and the one about the query's subject must rank first on its own cosine.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "mel"
QUERY = "Where did we go camping?"
MATCH = "We went camping at Yosemite in June."
RELATED = "We pitched a tent by the lake and roasted marshmallows under the stars."
UNRELATED = "I need to renew my car insurance before the end of the month."
FILLER = ["The dentist moved my appointment to Thursday.", "My sister started a new job at the bank.",
          "The printer at work is jammed again.", "I bought a new blender for smoothies."]
ONE_LISTED = SearchConfig.preset("balanced").model_copy(
    update={"dense_k": 1, "lexical_k": 1, "neighbour_pool": 1, "snippet_max_turns": 1, "rerank": False})


@pytest.fixture(scope="module")
def neighbours(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, dict[str, str]]]:
    store = NovaStore(tmp_path_factory.mktemp("nb") / "mem", embeddings=minilm_onnx)  # type: ignore[arg-type]
    t0 = datetime(2024, 6, 20, 18, 0, tzinfo=timezone.utc)
    # the unrelated turn comes last: recency alone would rank it first among equals
    turns = [(f, "s0") for f in FILLER] + [(RELATED, "s1"), (MATCH, "s1"), (UNRELATED, "s1")]
    added = store.add_turns([{"user_id": USER, "role": "user", "content": text, "session_id": session,
                              "timestamp": t0 + timedelta(minutes=i)} for i, (text, session) in enumerate(turns)])
    store.flush()
    yield store, {e.content: e.id for e in added}
    store.close()


def _hits(store: NovaStore) -> dict[str, object]:
    return {h.id: h for h in store.retrieve(QUERY, USER, k=10, preset=ONE_LISTED)}


def test_precondition_the_match_alone_is_listed(neighbours: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = neighbours
    assert [h.id for h in store.search(QUERY, USER, k=1, kinds=("episode",))] == [ids[MATCH]]


def test_both_neighbours_come_in_through_the_match(neighbours: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = neighbours
    assert {ids[RELATED], ids[UNRELATED]} <= set(_hits(store))


def test_a_neighbour_gets_its_own_similarity_score(neighbours: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = neighbours
    assert _hits(store)[ids[RELATED]].scores["w_dense"] > 0  # type: ignore[attr-defined]


def test_the_neighbour_about_the_query_outranks_the_other(neighbours: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = neighbours
    hits = _hits(store)
    assert hits[ids[RELATED]].score > hits[ids[UNRELATED]].score  # type: ignore[attr-defined]


def test_both_neighbours_got_the_same_share(neighbours: tuple[NovaStore, dict[str, str]]) -> None:
    store, ids = neighbours
    hits = _hits(store)
    shares = {hits[ids[t]].scores["w_neighbour"] for t in (RELATED, UNRELATED)}  # type: ignore[attr-defined]
    assert len(shares) == 1
