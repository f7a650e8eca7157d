"""A listed turn passes score along its session up to ``neighbour_reach`` places away (real SQLite,
Chroma, MiniLM): the share falls with the distance, stops at the session's edge and at the reach,
and never crosses to another session or user.

One turn is listed (``dense_k = lexical_k = 1``, no snippets), the camping turn in the middle of
a session of seven; what every other turn gets comes through it alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "mel"
QUERY = "Where did we go camping?"
SESSION = ["The dentist moved my appointment to Thursday.", "My sister started a new job at the bank.",
           "The printer at work is jammed again.", "We went camping at Yosemite in June.",
           "I bought a new blender for smoothies.", "The neighbours painted their fence green.",
           "Our team lost the pub quiz by one point."]
MATCH = 3
OTHER_SESSION = "The bakery on the corner closed for good."


def _config(reach: int) -> SearchConfig:
    return SearchConfig.preset("balanced").model_copy(update={
        "dense_k": 1, "lexical_k": 1, "neighbour_pool": 1, "snippet_max_turns": 1, "rerank": False,
        "neighbour_reach": reach})


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, list[str]]]:
    store = NovaStore(tmp_path_factory.mktemp("reach") / "mem", embeddings=minilm_onnx)  # type: ignore[arg-type]
    t0 = datetime(2024, 6, 20, 18, 0, tzinfo=timezone.utc)
    turns = [(OTHER_SESSION, "s0")] + [(text, "s1") for text in SESSION] + [(OTHER_SESSION + " Again.", "s2")]
    added = store.add_turns([{"user_id": USER, "role": "user", "content": text, "session_id": sid,
                              "timestamp": t0 + timedelta(minutes=i)} for i, (text, sid) in enumerate(turns)])
    store.flush()
    yield store, [e.id for e in added[1:-1]]  # the session's turns, in order
    store.close()


def test_nearby_gives_each_turn_within_reach_with_its_offset(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    got = store.components.db.nearby(USER, [ids[MATCH]], 2)[ids[MATCH]]
    assert sorted(got) == sorted([(ids[2], -1), (ids[4], 1), (ids[1], -2), (ids[5], 2)])


def test_nearby_stops_at_the_session_edge(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    assert sorted(store.components.db.nearby(USER, [ids[0]], 3)[ids[0]]) == sorted(
        [(ids[1], 1), (ids[2], 2), (ids[3], 3)])


def test_nearby_at_reach_one_is_the_adjacent_turns(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    before, after = store.components.db.neighbours(USER, [ids[MATCH]])[ids[MATCH]]
    assert store.components.db.nearby(USER, [ids[MATCH]], 1)[ids[MATCH]] == [(before, -1), (after, 1)]


def test_nearby_reads_no_other_users_turns(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    assert store.components.db.nearby("mallory", [ids[MATCH]], 2) == {}


def _shares(store: NovaStore, reach: int) -> dict[str, float]:
    return {h.id: h.scores.get("w_neighbour", 0.0)
            for h in store.retrieve(QUERY, USER, k=20, preset=_config(reach))}


def test_the_match_is_the_only_listed_turn(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    assert [h.id for h in store.search(QUERY, USER, k=1, kinds=("episode",))] == [ids[MATCH]]


def test_a_turn_two_away_gets_half_the_adjacent_share(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    shares = _shares(store, 2)
    assert shares[ids[MATCH + 2]] == pytest.approx(shares[ids[MATCH + 1]] / 2)


def test_a_turn_three_away_gets_a_third_of_it(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    shares = _shares(store, 3)
    assert shares[ids[MATCH - 3]] == pytest.approx(shares[ids[MATCH - 1]] / 3)


def test_a_turn_beyond_the_reach_gets_nothing(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    assert _shares(store, 2).get(ids[MATCH + 3], 0.0) == 0.0


def test_the_preset_reach_is_the_one_applied(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    reach = SearchConfig.preset("balanced").neighbour_reach
    shares = _shares(store, reach)
    assert {i for i, s in shares.items() if s > 0} == {ids[n] for n in range(len(ids)) if 0 < abs(n - MATCH) <= reach}


def test_no_share_crosses_into_another_session(session: tuple[NovaStore, list[str]]) -> None:
    store, ids = session
    shares = _shares(store, 4)
    assert {i for i, s in shares.items() if s > 0} <= set(ids)
