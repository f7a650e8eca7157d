"""``SearchConfig.item_stretch`` through ``store.context()`` on real MiniLM, Chroma and SQLite.

A cut turn keeps its sentence that shares the most words with the query whole (up to its cap
times ``item_stretch``) rather than the shorter sentences that fit and do not answer. The
sentence choice itself is unit-tested in ``tests/unit/test_compress_sentences.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig
from nova_memory_integrations.types import ContextResult

USER = "gina"
T0 = datetime(2023, 1, 20, 18, 0, tzinfo=timezone.utc)
ANSWER = "Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business."
TURN = "Hey Gina! Good to see you too. " + ANSWER
QUERY = "Why did Jon decide to start his own business?"
STYLES = ["salsa", "tango", "hip hop", "ballet", "jazz", "contemporary", "swing", "waltz"]
PLACES = ["the studio", "the park", "the theatre", "a school gym", "the festival stage"]
FILLER = [f"We rehearsed the {STYLES[i % 8]} routine at {PLACES[i % 5]} for {i + 2} hours and the new dancers "
          f"picked up the {['turns', 'lifts', 'footwork', 'spins', 'jumps'][i % 5]} fast, which I loved to see "
          f"after {['a long week', 'the holidays', 'my cold', 'the storm'][i % 4]}." for i in range(40)]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Iterator[NovaStore]:
    """One answering turn among forty long turns of dance practice, so the budget is spent."""
    s = NovaStore(tmp_path_factory.mktemp("stretch") / "mem", embeddings=minilm)  # type: ignore[arg-type]
    turns = [{"user_id": USER, "role": "Jon", "content": TURN, "timestamp": T0, "session_id": "s1"}]
    turns += [{"user_id": USER, "role": "Jon", "content": text, "timestamp": T0 + timedelta(days=1 + i),
               "session_id": f"s{2 + i}"} for i, text in enumerate(FILLER)]
    s.add_turns(turns)
    s.flush()
    yield s
    s.close()


def _context(store: NovaStore, stretch: float | None) -> ContextResult:
    update: dict[str, float] = {"lead_items": 0, "max_item_tokens": 16}
    if stretch is not None:
        update["item_stretch"] = stretch
    config = SearchConfig.preset("balanced").model_copy(update=update)
    return store.context(QUERY, USER, budget_tokens=300, preset=config)


def _answer_item(result: ContextResult) -> str:
    return next(s.text for s in result.sources if s.timestamp == T0)


def test_the_matching_sentence_is_kept_whole(store: NovaStore) -> None:
    assert ANSWER in _answer_item(_context(store, 2.5))


def test_without_stretch_the_cut_loses_it(store: NovaStore) -> None:
    assert ANSWER not in _answer_item(_context(store, 1.0))


def test_the_budget_still_holds(store: NovaStore) -> None:
    assert _context(store, 2.5).tokens <= 300


def test_the_default_stretch_keeps_it(store: NovaStore) -> None:
    assert ANSWER in _answer_item(_context(store, None))
