"""A turn that asks passes ``reply_weight`` of its score to the turn after it, its reply (real
SQLite, Chroma, MiniLM), on top of the ``neighbour_weight`` both neighbours get.

One turn is listed (``dense_k = lexical_k = 1``, no snippets): the question about running a
business, in the middle of a session of five; its neighbours get score through it alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "jon"
QUERY = "What advice did I get on running a successful business?"
ASKING = ["The studio floor got delivered today.", "I finally fixed the leaking tap.",
          "Got any advice on running a successful business?",
          "Brand identity is key, and build relationships with your customers.", "My cat knocked over a plant."]
TELLING = ["The studio floor got delivered today.", "I finally fixed the leaking tap.",
           "I want advice on running a successful business.",
           "Brand identity is key, and build relationships with your customers.", "My cat knocked over a plant."]
LISTED = 2


def _config(**update: float) -> SearchConfig:
    return SearchConfig.preset("balanced").model_copy(update={
        "dense_k": 1, "lexical_k": 1, "neighbour_pool": 1, "neighbour_reach": 1, "snippet_max_turns": 1,
        "rerank": False, **update})


def _store(path: object, session: list[str], embeddings: object) -> tuple[NovaStore, list[str]]:
    store = NovaStore(path, embeddings=embeddings)  # type: ignore[arg-type]
    t0 = datetime(2024, 3, 23, 18, 0, tzinfo=timezone.utc)
    added = store.add_turns([{"user_id": USER, "role": "user", "content": text, "session_id": "s1",
                              "timestamp": t0 + timedelta(minutes=i)} for i, text in enumerate(session)])
    store.flush()
    return store, [e.id for e in added]


@pytest.fixture(scope="module")
def asking(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, list[str]]]:
    store, ids = _store(tmp_path_factory.mktemp("asking") / "mem", ASKING, minilm_onnx)
    yield store, ids
    store.close()


@pytest.fixture(scope="module")
def telling(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, list[str]]]:
    store, ids = _store(tmp_path_factory.mktemp("telling") / "mem", TELLING, minilm_onnx)
    yield store, ids
    store.close()


def _shares(store: NovaStore, config: SearchConfig) -> dict[str, float]:
    return {h.id: h.scores.get("w_neighbour", 0.0) for h in store.retrieve(QUERY, USER, k=10, preset=config)}


def _score(store: NovaStore, turn: str, config: SearchConfig) -> float:
    return next(h.score for h in store.retrieve(QUERY, USER, k=10, preset=config) if h.id == turn)


def test_the_question_is_the_only_listed_turn(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    assert [h.id for h in store.search(QUERY, USER, k=1, kinds=("episode",))] == [ids[LISTED]]


def test_the_reply_gets_the_reply_share_on_top_of_the_neighbour_share(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    config = _config(neighbour_weight=0.2, reply_weight=0.3)
    shares = _shares(store, config)
    assert shares[ids[LISTED + 1]] == pytest.approx(shares[ids[LISTED - 1]] * (0.2 + 0.3) / 0.2)


def test_the_turn_before_gets_the_neighbour_share_alone(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    with_reply = _shares(store, _config(reply_weight=0.3))
    assert with_reply[ids[LISTED - 1]] == pytest.approx(_shares(store, _config(reply_weight=0.0))[ids[LISTED - 1]])


@pytest.mark.parametrize(("session", "reply_weight"), [("asking", 0.0), ("telling", 0.3)],
                         ids=["a question without the reply weight", "a turn that tells"])
def test_both_neighbours_get_the_same(request: pytest.FixtureRequest, session: str, reply_weight: float) -> None:
    store, ids = request.getfixturevalue(session)
    shares = _shares(store, _config(reply_weight=reply_weight))
    assert shares[ids[LISTED + 1]] == pytest.approx(shares[ids[LISTED - 1]])


def test_the_reply_share_comes_without_any_neighbour_weight(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    assert _shares(store, _config(neighbour_weight=0.0, reply_weight=0.3))[ids[LISTED + 1]] > 0


def test_without_a_neighbour_weight_the_turn_before_gets_nothing(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    assert _shares(store, _config(neighbour_weight=0.0, reply_weight=0.3)).get(ids[LISTED - 1], 0.0) == 0.0


def test_the_default_reply_weight_lifts_the_reply(asking: tuple[NovaStore, list[str]]) -> None:
    store, ids = asking
    assert _score(store, ids[LISTED + 1], _config()) > _score(store, ids[LISTED + 1], _config(reply_weight=0.0))


def test_the_rrf_preset_passes_no_reply_share() -> None:
    assert SearchConfig.preset("rrf").reply_weight == 0.0
