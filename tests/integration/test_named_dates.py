"""A question that names a day, a month or a span ("What did I show you on 25 May 2022?")
is answered from that day's turns (``SearchConfig.date_k``, ``weights.date``), on a real store
(SQLite, Chroma, MiniLM): the day's turns join the candidates although they share no word
with the question, the ones found otherwise are boosted, a stretch holding more than
``date_pool`` turns adds none, and another user's turns on that day are never found.

ann: six sessions, one a day from 20 to 25 May 2022, each of four turns; on the 25th she
showed a stuffed dog. bob: the same day, one turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "ann"
DAY = datetime(2022, 5, 25, 14, 0, tzinfo=timezone.utc)
QUESTION = "What did I give you on 25 May, 2022?"
FILLER = [
    "The weather has been lovely this week.",
    "Work kept me busy all afternoon.",
    "Dinner was pasta with a salad again.",
]


def _config(**update: object) -> SearchConfig:
    return SearchConfig.preset("balanced").model_copy(update={"rerank": False, **update})


def _weights(**update: float) -> object:
    return SearchConfig.preset("balanced").weights.model_copy(update=update)


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, dict[str, set[str]]]]:
    store = NovaStore(tmp_path_factory.mktemp("dates") / "mem", embeddings=minilm_onnx)  # type: ignore[arg-type]
    ids: dict[str, set[str]] = {"day": set(), "other_days": set()}
    for back in range(5, -1, -1):
        when = DAY - timedelta(days=back)
        texts = [*FILLER, "Look, a stuffed dog toy for you, I named her Tilly!" if back == 0
                 else f"I gave away some old books on day {back}."]
        added = store.add_turns([{"user_id": USER, "role": "user", "content": t, "session_id": f"s{back}",
                                  "timestamp": when + timedelta(minutes=i)} for i, t in enumerate(texts)])
        ids["day" if back == 0 else "other_days"] |= {e.id for e in added}
    ids["tilly"] = {e.id for e in store.search("stuffed dog toy named Tilly", USER, k=1, kinds=("episode",))}
    added = store.add_turns([{"user_id": "bob", "role": "user", "content": "I gave you a stuffed dog toy today!",
                              "session_id": "b", "timestamp": DAY}])
    ids["bob"] = {e.id for e in added}
    store.flush()
    yield store, ids
    store.close()


def _retrieve(store: NovaStore, query: str, config: SearchConfig, k: int = 50) -> list[object]:
    return store._recall.retrieve(query, USER, k=k, config=config).hits


def _dated(store: NovaStore, query: str, config: SearchConfig) -> set[str]:
    return {c.id for c in _retrieve(store, query, config) if "date" in c.raw}  # type: ignore[attr-defined]


def test_the_days_turns_join_the_candidates(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _dated(store, QUESTION, _config(dense_k=1, lexical_k=0)) == ids["day"]


def test_no_more_than_date_k_join(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert len(_dated(store, QUESTION, _config(date_k=2))) == 2


def test_none_join_with_date_k_zero(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert _dated(store, QUESTION, _config(date_k=0)) == set()


def test_none_join_when_no_date_is_named(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert _dated(store, "What did I give you?", _config()) == set()


def test_a_span_of_days_finds_each_of_them(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _dated(store, "between 24 May and 25 May 2022", _config(date_k=100)) == (
        ids["day"] | {i for i in ids["other_days"] if _on(store, i, 24)})


def test_a_stretch_holding_more_than_the_pool_adds_none(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns  # May 2022 holds 24 turns
    assert _dated(store, "in May 2022", _config(date_pool=23)) == set()


def test_a_stretch_within_the_pool_adds_its_turns(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _dated(store, "in May 2022", _config(date_pool=24, date_k=100)) == ids["day"] | ids["other_days"]


def _place_of_tilly(store: NovaStore, ids: dict[str, set[str]], config: SearchConfig) -> int:
    ranked = [c.id for c in _retrieve(store, QUESTION, config)]  # type: ignore[attr-defined]
    return ranked.index(next(iter(ids["tilly"])))


def test_the_days_answer_ranks_above_every_other_days_gift(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    ranked = [c.id for c in _retrieve(store, QUESTION, _config())]  # type: ignore[attr-defined]
    gifts = [ranked.index(i) for i in ids["other_days"] if i in ranked and "gave away" in _text(store, i)]
    assert _place_of_tilly(store, ids, _config()) < min(gifts)


def test_without_the_date_signal_the_other_days_gifts_rank_above_it(
        turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns  # the test above is not won by the words alone
    assert _place_of_tilly(store, ids, _config(date_k=0, weights=_weights(date=0.0))) >= 5


def test_a_turn_of_the_day_found_otherwise_is_boosted(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cands = _retrieve(store, QUESTION, _config(date_k=0))
    boosted = {c.id for c in cands if "date" in c.contributions}  # type: ignore[attr-defined]
    assert boosted == ids["day"] & {c.id for c in cands}  # type: ignore[attr-defined]


def test_the_boost_is_its_share_of_the_score(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cand = next(c for c in _retrieve(store, QUESTION, _config(weights=_weights(date=0.5)))
                if c.id in ids["tilly"])  # type: ignore[attr-defined]
    rest = sum(v for k, v in cand.contributions.items() if k == "dense" or k == "lexical"  # type: ignore[attr-defined]
               or k in ("neighbour", "session"))
    assert cand.contributions["date"] == pytest.approx(0.5 * rest)  # type: ignore[attr-defined]


def test_another_users_turn_on_that_day_is_never_found(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    found = {c.id for c in _retrieve(store, "stuffed dog toy on 25 May 2022", _config(date_k=100))}  # type: ignore[attr-defined]
    assert not found & ids["bob"]


def test_a_session_scoped_recall_keeps_to_its_session(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cands = store._recall.retrieve("between 20 May and 25 May 2022", USER, k=50, config=_config(date_k=100),
                                   session_id="s1").hits
    assert {c.id for c in cands if "date" in c.raw} <= {i for i in ids["other_days"] if _on(store, i, 24)}


BUDGET = 80
"""Room for a few lines: the day's answer makes it with the date signal, not without."""


def test_the_context_holds_the_days_answer(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert "Tilly" in store.context(QUESTION, USER, budget_tokens=BUDGET).text


def test_without_the_date_signal_the_context_misses_it(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns  # the test above is not won by the words alone
    off = _config(date_k=0, weights=_weights(date=0.0))
    assert "Tilly" not in store.context(QUESTION, USER, budget_tokens=BUDGET, preset=off).text


def _text(store: NovaStore, episode_id: str) -> str:
    (episode,) = store.components.db.get_episodes(USER, [episode_id])
    return episode.content


def _on(store: NovaStore, episode_id: str, day_of_month: int) -> bool:
    (episode,) = store.components.db.get_episodes(USER, [episode_id])
    return episode.timestamp.day == day_of_month


def test_with_rrf_fusion_the_days_turns_are_a_ranking_of_their_own(
        turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cands = _retrieve(store, QUESTION, _config(fusion="rrf"))
    assert {c.id for c in cands if "date" in c.contributions} == ids["day"]  # type: ignore[attr-defined]


def test_yesterday_counts_from_the_querys_as_of(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cands = store._recall.retrieve("What did I give you yesterday?", USER, k=50, config=_config(),
                                   as_of=DAY + timedelta(days=1, hours=3)).hits
    assert {c.id for c in cands if "date" in c.raw} == ids["day"]  # type: ignore[attr-defined]


def test_the_context_reads_yesterday_from_its_as_of(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    text = store.context("What did I give you yesterday?", USER, budget_tokens=BUDGET,
                         as_of=DAY + timedelta(days=1, hours=3)).text
    assert "Tilly" in text
