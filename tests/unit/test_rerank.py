"""Reranking stage: FlashRank through a real ONNX stand-in, fallbacks, factory, imports."""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import logging
import math
import re
import shutil
import subprocess
import sys
import time
import types
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from standin_models import BIAS, build_flashrank_model, flashrank_config, minilm_files

from nova_memory_integrations.rerank import (
    CrossEncoderReranker,
    FlashRankReranker,
    LexicalSemanticReranker,
    Reranker,
    make_reranker,
)
from nova_memory_integrations.rerank import factory as rerank_factory
from nova_memory_integrations.rerank.base import ModelNotAvailable
from nova_memory_integrations.rerank.fallback import stem, tokenize

RERANK_LOGGER = "nova_memory_integrations.rerank"
RELEVANT_WEIGHTS = {"paris": 4.0, "france": 2.0}

QUERY = "which city is the capital"
TEXTS = [
    "bananas are yellow and curved",  # nothing relevant: logit -2
    "the louvre is in paris",  # paris: logit 2
    "wine from france is famous",  # france: logit 0
    "paris is the capital of france",  # both: logit 4
]


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


EXPECTED = [_sigmoid(BIAS), _sigmoid(BIAS + 4.0), _sigmoid(BIAS + 2.0), _sigmoid(BIAS + 6.0)]


def _pairwise_model_names() -> list[str]:
    model_file_map, listwise = flashrank_config()
    return sorted(name for name in model_file_map if name not in listwise)


@pytest.fixture(scope="module")
def flashrank_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("flashrank_cache")
    build_flashrank_model(cache, "ms-marco-MiniLM-L-12-v2", RELEVANT_WEIGHTS)
    return cache


@pytest.fixture
def no_download(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any flashrank download attempt fail loudly."""
    from flashrank import Ranker

    def refuse(self: object, model_name: str) -> None:
        raise AssertionError(f"flashrank tried to download {model_name}")

    monkeypatch.setattr(Ranker, "_download_model_files", refuse)


@contextlib.contextmanager
def bare_root_logger() -> Iterator[logging.Logger]:
    """An unconfigured root logger (no handlers, level ERROR), as in a plain script.

    Done inside the test body: pytest adds its capture handlers to the root logger only
    for the call phase, so a fixture could not strip them.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    for handler in handlers:
        root.removeHandler(handler)
    root.setLevel(logging.ERROR)
    try:
        yield root
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


# --------------------------------------------------------------------------- FlashRank


def test_flashrank_ranks_relevant_first_and_aligns_scores(flashrank_cache: Path, no_download: None) -> None:
    reranker = FlashRankReranker("ms-marco-MiniLM-L-12-v2", cache_dir=flashrank_cache)
    assert isinstance(reranker, Reranker)
    assert reranker.name == "flashrank:ms-marco-MiniLM-L-12-v2"

    scores = reranker.score(QUERY, TEXTS)
    assert len(scores) == len(TEXTS)
    assert all(isinstance(s, float) and 0.0 <= s <= 1.0 for s in scores)
    assert scores == pytest.approx(EXPECTED, abs=1e-5)  # aligned with input order
    assert max(range(len(TEXTS)), key=scores.__getitem__) == 3

    reversed_scores = reranker.score(QUERY, TEXTS[::-1])
    assert reversed_scores == pytest.approx(scores[::-1], abs=1e-6)
    assert reranker.score(QUERY, []) == []


def test_flashrank_many_candidates_are_chunked_and_aligned(flashrank_cache: Path) -> None:
    reranker = FlashRankReranker(cache_dir=flashrank_cache)
    texts = [f"filler passage number {i} about bananas" for i in range(150)]
    texts[137] = "a trip to paris in spring"
    texts[3] = "cheese from france"
    scores = reranker.score(QUERY, texts)
    assert len(scores) == 150
    order = sorted(range(150), key=lambda i: -scores[i])
    assert order[:2] == [137, 3]
    assert scores[0] == pytest.approx(_sigmoid(BIAS), abs=1e-5)


def test_flashrank_does_not_touch_root_logger(flashrank_cache: Path) -> None:
    from flashrank import Ranker

    with bare_root_logger() as root:
        # Premise: flashrank itself configures an unconfigured root logger.
        Ranker(model_name="ms-marco-MiniLM-L-12-v2", cache_dir=str(flashrank_cache), max_length=64)
        assert len(root.handlers) == 1, "flashrank no longer calls logging.basicConfig?"
        assert root.level == logging.INFO
        root.removeHandler(root.handlers[0])
        root.setLevel(logging.ERROR)

        FlashRankReranker(cache_dir=flashrank_cache)
        assert root.handlers == []
        assert root.level == logging.ERROR


def test_flashrank_keeps_existing_root_handlers(flashrank_cache: Path) -> None:
    mine = logging.NullHandler()
    with bare_root_logger() as root:
        root.addHandler(mine)
        root.setLevel(logging.CRITICAL)
        FlashRankReranker(cache_dir=flashrank_cache)
        assert root.handlers == [mine]
        assert root.level == logging.CRITICAL


@pytest.mark.parametrize("model_name", _pairwise_model_names())
def test_flashrank_every_pairwise_model_name(tmp_path: Path, model_name: str, no_download: None) -> None:
    build_flashrank_model(tmp_path, model_name, RELEVANT_WEIGHTS)
    reranker = make_reranker("flashrank", model_name=model_name, model_dir=tmp_path)
    assert isinstance(reranker, FlashRankReranker)
    assert reranker.score(QUERY, TEXTS) == pytest.approx(EXPECTED, abs=1e-5)


def test_flashrank_listwise_model_scores_from_rank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model_file_map, listwise = flashrank_config()
    name = sorted(listwise)[0]
    with pytest.raises(ModelNotAvailable, match=re.escape(model_file_map[name])):
        FlashRankReranker(name, cache_dir=tmp_path)
    (tmp_path / name).mkdir()
    (tmp_path / name / model_file_map[name]).write_bytes(b"")

    class FakeLlama:
        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

        def create_chat_completion(self, messages: list[dict[str, str]]) -> dict[str, Any]:
            return {"choices": [{"message": {"content": "[3] > [1] > [2]"}}]}

    fake = types.ModuleType("llama_cpp")
    fake.__spec__ = importlib.machinery.ModuleSpec("llama_cpp", None)
    fake.Llama = FakeLlama  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    reranker = FlashRankReranker(name, cache_dir=tmp_path)
    assert reranker.score("q", ["a", "b", "c"]) == pytest.approx([2 / 3, 1 / 3, 1.0])


def test_flashrank_missing_directory_raises_without_downloading(tmp_path: Path, no_download: None) -> None:
    empty = tmp_path / "models"
    with pytest.raises(ModelNotAvailable, match=re.escape("flashrank-MiniLM-L-12-v2_Q.onnx")):
        FlashRankReranker(cache_dir=empty)
    with pytest.raises(ModelNotAvailable, match=re.escape("tokenizer.json")):
        make_reranker("flashrank", model_dir=empty)
    assert not empty.exists()  # nothing created, nothing downloaded


def test_flashrank_incomplete_layout_names_missing_files(tmp_path: Path) -> None:
    model_dir = build_flashrank_model(tmp_path, "ms-marco-MiniLM-L-12-v2", RELEVANT_WEIGHTS)
    (model_dir / "special_tokens_map.json").unlink()
    with pytest.raises(ModelNotAvailable, match=re.escape("missing special_tokens_map.json")):
        FlashRankReranker(cache_dir=tmp_path)
    (model_dir / "special_tokens_map.json").write_text("{}")
    (model_dir / "config.json").write_text("{}")
    with pytest.raises(ModelNotAvailable, match="pad_token_id"):
        FlashRankReranker(cache_dir=tmp_path)


def test_flashrank_corrupt_model_raises_model_not_available(tmp_path: Path) -> None:
    model_dir = build_flashrank_model(tmp_path, "ms-marco-MiniLM-L-12-v2", RELEVANT_WEIGHTS)
    (model_dir / "flashrank-MiniLM-L-12-v2_Q.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(ModelNotAvailable, match="failed to load"):
        FlashRankReranker(cache_dir=tmp_path)


def test_flashrank_unknown_model_name(tmp_path: Path) -> None:
    with pytest.raises(ModelNotAvailable, match="no model named"):
        FlashRankReranker("no-such-model", cache_dir=tmp_path)


# --------------------------------------------------------------------------- factory


def test_auto_uses_flashrank_when_model_present(flashrank_cache: Path) -> None:
    reranker = make_reranker("auto", model_dir=flashrank_cache)
    assert isinstance(reranker, FlashRankReranker)
    # model_dir may also point at the model folder itself.
    direct = make_reranker("auto", model_dir=flashrank_cache / "ms-marco-MiniLM-L-12-v2")
    assert isinstance(direct, FlashRankReranker)


def test_auto_falls_back_with_one_warning_per_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, no_download: None
) -> None:
    rerank_factory._reset_fallback_warning()
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    first = make_reranker("auto", model_dir=tmp_path / "nothing")
    second = make_reranker("auto", model_dir=tmp_path / "nothing")
    third = make_reranker("auto")
    assert all(isinstance(r, LexicalSemanticReranker) for r in (first, second, third))
    warnings = [r for r in caplog.records if r.name == RERANK_LOGGER and r.levelno == logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert message.startswith("nova-memory: no reranker model in retrieval.reranker_model_dir, using the fallback")
    assert "ms-marco-MiniLM-L-12-v2/" in message and "flashrank-MiniLM-L-12-v2_Q.onnx" in message
    assert "\n" not in message and "..." not in message  # whole, one line
    with pytest.raises(ModelNotAvailable) as caught:
        make_reranker("flashrank", model_dir=tmp_path / "nothing")
    assert " ".join(str(caught.value).split(". ")[0].split()) in message  # the reason, not cut
    assert message.endswith('to silence this, set retrieval.reranker = "fallback"')
    assert not (tmp_path / "nothing").exists()


def test_the_unfetched_warning_is_whole_and_says_what_to_do(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline with an empty cache: the warning names the whole reason (it was cut at 70 characters,
    "... is no..."), how to allow fetching or where to put the files, and the setting that silences it."""
    rerank_factory._reset_fallback_warning()
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    monkeypatch.setenv("NOVA_MEMORY_OFFLINE", "1")  # nothing is fetched from the default URL
    monkeypatch.delenv("NOVA_MEMORY_MODEL_URL", raising=False)
    cache = tmp_path / "a-rather-long-model-cache-directory-name" / "models"
    assert isinstance(make_reranker("auto", cache_dir=cache), LexicalSemanticReranker)
    warnings = [r.getMessage() for r in caplog.records if r.name == RERANK_LOGGER and r.levelno == logging.WARNING]
    assert len(warnings) == 1
    model, root = rerank_factory.FETCH_MODEL, cache / "rerankers"
    assert warnings[0] == (
        f"nova-memory: no reranker model, using the fallback reranker: fetching is off (NOVA_MEMORY_OFFLINE) and "
        f"{model} is not in {root}; to get it, unset NOVA_MEMORY_OFFLINE (or set it to 0) and run nova-memory "
        f"models pull, or unzip https://huggingface.co/prithivida/flashrank/resolve/main/{model}.zip into {root}. "
        'To silence this, set retrieval.reranker = "fallback"'
    )
    assert not root.exists()


def test_factory_fallback_and_errors(tmp_path: Path) -> None:
    embed_calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embed_calls.append(texts)
        return [[1.0, 0.0] for _ in texts]

    fallback = make_reranker("fallback", embed=embed)
    assert isinstance(fallback, LexicalSemanticReranker)
    fallback.score("q", ["a"])
    assert embed_calls == [["q", "a"]]
    with pytest.raises(ModelNotAvailable):
        make_reranker("cross-encoder", model_dir=tmp_path / "missing")
    with pytest.raises(ModelNotAvailable, match="model_dir"):
        make_reranker("cross-encoder")
    with pytest.raises(ValueError, match="unknown reranker kind"):
        make_reranker("bm25")


# --------------------------------------------------------------------------- fallback

PASSAGES = [
    "The quarterly budget review meeting was moved to Thursday afternoon.",
    "Alice has been running marathons since she moved to Berlin in 2019.",
    "Bob prefers tea over coffee in the morning.",
    "Berlin weather is cold in winter; the city has many running tracks.",
    "Cats sleep for most of the day.",
]
FALLBACK_QUERY = "Where did Alice move? Does she run?"


def _fake_embed(texts: list[str]) -> list[list[float]]:
    """Deterministic hashed bag-of-stems embedding (a stand-in for a real model)."""
    vectors = []
    for text in texts:
        vec = [0.0] * 32
        for token in tokenize(text):
            vec[zlib.crc32(token.encode()) % 32] += 1.0
        vectors.append(vec)
    return vectors


def test_stemming_and_tokenizing() -> None:
    assert stem("running") == "run"
    assert stem("moved") == "move"
    assert stem("move") == stem("moves") == stem("moving") == "move"
    assert stem("cats") == "cat"
    assert stem("studies") == stem("study")
    assert stem("2019") == "2019"
    assert tokenize("Alice's CATS, moved -- to the PARIS!") == [stem("alice"), "cat", "move", "paris"]


@pytest.mark.parametrize("with_embed", [False, True])
def test_lexical_semantic_ranks_relevant_first(with_embed: bool) -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> Sequence[Sequence[float]]:
        calls.append(list(texts))
        return _fake_embed(texts)

    reranker = LexicalSemanticReranker(embed=embed if with_embed else None)
    assert isinstance(reranker, Reranker)
    scores = reranker.score(FALLBACK_QUERY, PASSAGES)
    assert len(scores) == len(PASSAGES)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert max(range(len(PASSAGES)), key=scores.__getitem__) == 1
    assert scores[2] < 0.5 * scores[1]  # "Bob prefers tea" shares nothing with the query
    assert reranker.score(FALLBACK_QUERY, PASSAGES) == scores  # deterministic
    assert reranker.score(FALLBACK_QUERY, PASSAGES[::-1]) == pytest.approx(scores[::-1])
    if with_embed:
        assert calls[0] == [FALLBACK_QUERY, *PASSAGES]
        assert len(calls) == 3  # once per score() call
        assert reranker.name == "lexical+semantic"
    else:
        assert reranker.name == "lexical"


def test_lexical_semantic_edge_cases() -> None:
    reranker = LexicalSemanticReranker()
    assert reranker.score("anything", []) == []
    assert reranker.score("", ["some text"]) == [0.0]
    # A query made only of stopwords still matches on them.
    only_stop = reranker.score("who is it", ["it is who", "bananas"])
    assert only_stop[0] > only_stop[1]
    semantic_only = LexicalSemanticReranker(embed=lambda t: [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], lexical_weight=0.0)
    assert semantic_only.score("zzz", ["yyy", "xxx"]) == pytest.approx([1.0, 0.0])
    with pytest.raises(ValueError, match="embed returned"):
        LexicalSemanticReranker(embed=lambda t: [[1.0]]).score("q", ["a", "b"])
    with pytest.raises(ValueError, match="lexical_weight"):
        LexicalSemanticReranker(lexical_weight=1.5)


def test_lexical_scoring_is_fast() -> None:
    texts = [
        f"Memory number {i}: the user talked about {w} projects, meetings and running plans for next week."
        for i, w in enumerate(["python", "garden", "travel", "budget", "music"] * 10)
    ]
    reranker = LexicalSemanticReranker()
    reranker.score("what travel plans does the user have", texts)  # warm the stem cache
    best = min(_timed(lambda: reranker.score("what travel plans does the user have", texts)) for _ in range(20))
    assert best < 0.002


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --------------------------------------------------------------------------- cross-encoder


def test_cross_encoder_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ModelNotAvailable, match="does not exist"):
        CrossEncoderReranker(tmp_path / "absent")
    with pytest.raises(ModelNotAvailable, match="holds no model"):
        CrossEncoderReranker(tmp_path)


def test_cross_encoder_local_tiny_model(tmp_path: Path) -> None:
    """A tiny randomly initialised BERT cross-encoder saved locally loads and scores offline."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=1,
    )
    model_dir = tmp_path / "tiny-ce"
    transformers.BertForSequenceClassification(config).save_pretrained(model_dir)
    for name in ("tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(minilm_files() / name, model_dir / name)

    reranker = make_reranker("cross-encoder", model_dir=tmp_path, model_name="tiny-ce")
    assert isinstance(reranker, CrossEncoderReranker)
    scores = reranker.score(QUERY, TEXTS)
    assert len(scores) == len(TEXTS)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert reranker.score(QUERY, TEXTS[::-1]) == pytest.approx(scores[::-1], abs=1e-5)
    assert reranker.score(QUERY, []) == []


# --------------------------------------------------------------------------- imports


def test_import_does_not_load_heavy_libraries() -> None:
    code = (
        "import sys, nova_memory_integrations as pkg\n"
        "before = set(sys.modules)\n"
        "import nova_memory_integrations.rerank\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "heavy = {'flashrank', 'onnxruntime', 'sentence_transformers', 'torch', 'transformers'}\n"
        "assert 'flashrank' not in sys.modules, 'flashrank imported'\n"
        "assert not (new & heavy), sorted(new & heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
