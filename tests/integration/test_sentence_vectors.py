"""Sentence vectors kept beside a turn (``indexing.sentence_vectors``) and the cut they choose in
``store.context()``, on real MiniLM (ONNX), Chroma and SQLite.

A long turn cut to fit the budget keeps its sentence closest to the query in meaning ("a tiny
puppy from the shelter" for "Which pet did Maria adopt?"), not the one sharing its words ("The
adoption forms ..."). The choice itself is unit-tested in ``tests/unit/test_compress_relevance.py``;
the table's rows in ``tests/unit/test_mut_storage_sentence_vectors.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings import CachedEmbedder, MiniLMEmbeddings
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.retrieval.search_config import SearchConfig
from nova_memory_integrations.text.sentences import sentences_of

USER = "maria"
T0 = datetime(2023, 8, 1, 18, 0, tzinfo=timezone.utc)
WORDS = "The adoption forms for my new flat took a whole week."
MEANING = "Anyway, a tiny puppy from the shelter came home with me!"
TURN = f"{WORDS} {MEANING}"
SHORT = "I baked bread today."
QUERY = "Which pet did Maria adopt?"
FILLER = [f"We rehearsed the {['salsa', 'tango', 'swing', 'waltz'][i % 4]} routine at the studio for {i + 2} hours "
          f"and the new dancers picked up the {['turns', 'lifts', 'spins'][i % 3]} fast, which I loved to see."
          for i in range(30)]
CUT = {"lead_items": 0, "max_item_tokens": 16, "item_stretch": 1.0}


def _fill(store: NovaStore, user: str = USER) -> list[str]:
    turns = [{"user_id": user, "role": "Maria", "content": TURN, "timestamp": T0, "session_id": "s1"},
             {"user_id": user, "role": "Maria", "content": SHORT, "timestamp": T0 + timedelta(minutes=1),
              "session_id": "s1"}]
    turns += [{"user_id": user, "role": "Maria", "content": text, "timestamp": T0 + timedelta(days=1 + i),
               "session_id": f"s{2 + i}"} for i, text in enumerate(FILLER)]
    eps = store.add_turns(turns)
    assert store.flush(timeout=120)
    return [e.id for e in eps]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: OnnxMiniLMEmbeddings
           ) -> Iterator[dict[bool, tuple[NovaStore, list[str]]]]:
    """The same turns in a store keeping sentence vectors (``True``) and one keeping none."""
    out: dict[bool, tuple[NovaStore, list[str]]] = {}
    for keep in (True, False):
        cfg = NovaConfig()
        cfg.indexing.sentence_vectors = keep
        store = NovaStore(tmp_path_factory.mktemp("sentences") / "mem", embeddings=minilm_onnx, config=cfg)
        out[keep] = (store, _fill(store))
    yield out
    for store, _ in out.values():
        store.close()


def _cut_turn(store: NovaStore) -> str:
    config = SearchConfig.preset("balanced").model_copy(update=CUT)
    result = store.context(QUERY, USER, budget_tokens=200, preset=config)
    return next(s.text for s in result.sources if s.timestamp == T0)


def test_a_turn_of_two_sentences_keeps_a_vector_for_each(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    store, ids = stores[True]
    assert store.components.db.sentence_vectors(USER, ids[:1])[ids[0]].size == 2 * 384


def test_a_turn_of_one_sentence_keeps_none(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    store, ids = stores[True]
    assert ids[1] not in store.components.db.sentence_vectors(USER, ids[:2])


def _kept(stores: dict[bool, tuple[NovaStore, list[str]]]) -> np.ndarray:
    store, ids = stores[True]
    return store.components.db.sentence_vectors(USER, ids[:1])[ids[0]].reshape(2, -1)


def test_the_kept_vectors_are_unit_length(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    assert np.allclose(np.linalg.norm(_kept(stores), axis=1), 1.0, atol=1e-5)


def test_each_kept_vector_is_closest_to_its_own_sentence(
    stores: dict[bool, tuple[NovaStore, list[str]]], minilm_onnx: OnnxMiniLMEmbeddings
) -> None:
    """Pooled from the turn's own pass (not the sentence alone), yet each is its sentence's."""
    alone = np.asarray(minilm_onnx.embed_documents(list(sentences_of(TURN))), dtype=np.float32)
    assert (_kept(stores) @ alone.T).argmax(axis=1).tolist() == [0, 1]


def test_the_turn_vector_is_the_one_embedded_alone(
    stores: dict[bool, tuple[NovaStore, list[str]]], minilm_onnx: OnnxMiniLMEmbeddings
) -> None:
    store, ids = stores[True]
    kept = store.components.db.episode_vectors(USER, ids[:1])[ids[0]]
    assert float(np.abs(kept - np.asarray(minilm_onnx.embed_documents([TURN])[0])).max()) < 1e-5


def test_the_setting_off_keeps_none(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    store, ids = stores[False]
    assert store.components.db.sentence_vectors(USER, ids) == {}


def test_another_user_reads_none(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    store, ids = stores[True]
    assert store.components.db.sentence_vectors("mallory", ids) == {}


def test_the_cut_keeps_the_sentence_closest_in_meaning(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    assert MEANING in _cut_turn(stores[True][0])


def test_the_cut_leaves_the_sentence_sharing_words_out(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    assert WORDS not in _cut_turn(stores[True][0])


def test_without_them_the_sentence_sharing_words_is_kept(stores: dict[bool, tuple[NovaStore, list[str]]]) -> None:
    assert WORDS in _cut_turn(stores[False][0])


def test_vectors_that_no_longer_match_the_sentences_are_not_used(
    make_store: Callable[..., NovaStore], tmp_path: Path
) -> None:
    """Three kept vectors for a turn of two sentences (a split that changed since): shared words choose."""
    store = make_store(tmp_path / "mismatch")
    ids = _fill(store)
    three = np.tile(store.components.db.sentence_vectors(USER, ids[:1])[ids[0]][:384], 3).astype("<f4")
    with store.components.db.transaction() as conn:
        conn.execute("UPDATE episode_sentence_vectors SET vecs = ? WHERE seq = (SELECT seq FROM episodes WHERE id = ?)",
                     (three.tobytes(), ids[0]))
    assert WORDS in _cut_turn(store)


def _kept_rows(store: NovaStore) -> int:
    return int(store.components.db.query("SELECT COUNT(*) FROM episode_sentence_vectors")[0][0])


def test_forgetting_the_user_drops_them(make_store: Callable[..., NovaStore], tmp_path: Path) -> None:
    store = make_store(tmp_path / "forget")
    _fill(store, "zoe")
    store.forget("zoe")
    assert _kept_rows(store) == 0


def test_deleting_a_turn_drops_its_own(make_store: Callable[..., NovaStore], tmp_path: Path) -> None:
    store = make_store(tmp_path / "delete")
    ids = _fill(store, "zoe")
    before = _kept_rows(store)
    store.delete("zoe", ids[:1])
    assert (before - _kept_rows(store), store.components.db.sentence_vectors("zoe", ids[:1])) == (1, {})


def test_a_reindex_keeps_them_again(make_store: Callable[..., NovaStore], tmp_path: Path) -> None:
    store = make_store(tmp_path / "reindex")
    ids = _fill(store, "zoe")
    store.reindex()
    assert store.flush(timeout=120)
    assert store.components.db.sentence_vectors("zoe", ids[:1])[ids[0]].size == 2 * 384


# -- the embedders ------------------------------------------------------------------------------------
def test_onnx_gives_no_sentence_vectors_for_one_sentence(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    assert minilm_onnx.embed_spans([SHORT], [[SHORT]])[1] == [None]


def test_onnx_gives_none_for_sentences_not_in_the_text(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    assert minilm_onnx.embed_spans([TURN], [[WORDS, SHORT]])[1] == [None]


def test_onnx_gives_none_when_a_sentence_is_cut_off(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    long = " ".join(["The studio was full of dancers practising late into the night again."] * 20)
    assert minilm_onnx.embed_spans([f"{long} {MEANING}"], [[long, MEANING]])[1] == [None]


def test_onnx_turn_vectors_do_not_change_with_sentences(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    vectors, _ = minilm_onnx.embed_spans([TURN, SHORT], [[WORDS, MEANING], [SHORT]])
    assert float(np.abs(vectors - minilm_onnx.embed_array([TURN, SHORT])).max()) < 1e-6


def _without_spans(minilm: MiniLMEmbeddings) -> tuple[CachedEmbedder, list[list[list[float]] | None]]:
    embedder = CachedEmbedder(minilm)  # the torch model: no embed_spans
    return embedder, embedder.embed_with_sentences([TURN, SHORT], [[WORDS, MEANING], [SHORT]])[1]


def test_a_model_without_spans_embeds_the_sentences_alone(minilm: MiniLMEmbeddings) -> None:
    embedder, per = _without_spans(minilm)
    assert float(np.abs(np.asarray(per[0]) - np.asarray(embedder.embed_documents([WORDS, MEANING]))).max()) < 1e-6


def test_a_model_without_spans_gives_none_for_one_sentence(minilm: MiniLMEmbeddings) -> None:
    assert _without_spans(minilm)[1][1] is None
