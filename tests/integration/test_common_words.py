"""Keyword search leaves out a query word most turns hold (``SearchConfig.lexical_common``), on a
real store (SQLite, Chroma, MiniLM): the rarer words are searched, none when all are common
(dense search answers those), a word in few turns whatever its share (``lexical_common_min``),
and another user's turns count towards how common a word is without ever being found.

ann: 24 turns about staying late at work, 4 work e-mails, 3 about a guitar; bob: 20 about work.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "ann"


def _config(**update: object) -> SearchConfig:
    return SearchConfig.preset("balanced").model_copy(update={"lexical_k": 100, "rerank": False, **update})


RULE = _config(lexical_common=0.2, lexical_common_min=0)  # "work": 48 of 51 turns; "stayed": 24


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: object) -> Iterator[tuple[NovaStore, dict[str, set[str]]]]:
    store = NovaStore(tmp_path_factory.mktemp("common") / "mem", embeddings=minilm_onnx)  # type: ignore[arg-type]
    groups = {
        "late": [f"Stayed late at work again, day {i}." for i in range(24)],
        "email": [f"Another work email about invoice {i}." for i in range(4)],
        "guitar": ["Practised the new guitar riff tonight.", "My guitar lesson moved to Friday.",
                   "Bought new guitar strings."],
    }
    ids: dict[str, set[str]] = {}
    for name, texts in groups.items():
        added = store.add_turns([{"user_id": USER, "role": "user", "content": t} for t in texts])
        ids[name] = {e.id for e in added}
    added = store.add_turns([{"user_id": "bob", "role": "user", "content": f"Work, work, work ({i})."}
                             for i in range(20)])
    ids["bob"] = {e.id for e in added}
    store.flush()
    yield store, ids
    store.close()


def _keyword_hits(store: NovaStore, query: str, config: SearchConfig) -> set[str]:
    cands = store._recall.retrieve(query, USER, k=200, config=config).hits
    return {c.id for c in cands if "lexical" in c.raw}


def test_a_common_word_is_left_out(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _keyword_hits(store, "guitar after work", RULE) == ids["guitar"]


def test_every_word_is_searched_with_a_share_of_one(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _keyword_hits(store, "guitar after work", _config(lexical_common=1.0)) == (
        ids["late"] | ids["email"] | ids["guitar"])


def test_a_word_in_few_turns_is_kept_by_default(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns  # "work" is in 48 of 51 turns, within the default lexical_common_min (50)
    assert _keyword_hits(store, "guitar after work", _config()) == ids["late"] | ids["email"] | ids["guitar"]


def test_a_query_of_common_words_finds_nothing_by_keyword(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns  # "stayed" (24 turns) and "work" (48) are both above a share of 0.2
    assert _keyword_hits(store, "stayed at work", RULE) == set()


def test_a_query_of_common_words_is_still_answered_by_dense_search(
        turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    cands = store._recall.retrieve("stayed at work", USER, k=10, config=RULE).hits
    assert {c.id for c in cands} & ids["late"]


def test_the_same_query_with_every_word_kept_finds_them(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert _keyword_hits(store, "stayed at work", _config(lexical_common=1.0)) == ids["late"] | ids["email"]


def test_another_users_turns_are_never_found(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns
    assert not _keyword_hits(store, "work", RULE) & ids["bob"]


def test_another_users_turns_make_a_word_common(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, ids = turns  # ann's 28 work turns are 55 % of the store; with bob's, "work" is in 94 %
    assert _keyword_hits(store, "guitar work", _config(lexical_common=0.6, lexical_common_min=0)) == ids["guitar"]


TOTAL = "SELECT block FROM episodes_fts_data WHERE id = 1"  # the start of every word count


def _statements(store: NovaStore, config: SearchConfig) -> list[str]:
    seen: list[str] = []
    conn = store.components.db._conn
    conn.set_trace_callback(seen.append)
    try:
        store._recall.retrieve("guitar after work", USER, k=10, config=config)
    finally:
        conn.set_trace_callback(None)
    return seen


def test_a_recall_reads_the_word_counts_once(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert _statements(store, _config()).count(TOTAL) == 1


def test_a_share_of_one_counts_no_words(turns: tuple[NovaStore, dict[str, set[str]]]) -> None:
    store, _ = turns
    assert TOTAL not in _statements(store, _config(lexical_common=1.0))
