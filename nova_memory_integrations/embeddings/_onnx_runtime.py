"""ONNX Runtime plumbing of :mod:`.onnx_embeddings`: model directory facts, tokenising, pooling, sessions.

Private: the export code and :class:`~.onnx_embeddings.OnnxMiniLMEmbeddings` share these.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingError

_ALLOWED_MODULES = {
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
}


# -- model directory facts -------------------------------------------------------------------------
def _read_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _check_modules(model_dir: Path) -> None:
    """Only Transformer -> Pooling -> Normalize pipelines are reproduced outside torch."""
    try:
        with open(model_dir / "modules.json", encoding="utf-8") as fh:
            modules = json.load(fh)
    except (OSError, ValueError):
        return  # a plain transformers directory: mean pooling, as sentence-transformers does
    extra = [m.get("type") for m in modules if isinstance(m, dict) and m.get("type") not in _ALLOWED_MODULES]
    if extra:
        raise EmbeddingError(f"the ONNX backend cannot reproduce modules {extra} of {model_dir}")


def _pooling_mode(model_dir: Path) -> str:
    cfg = _read_json(model_dir / "1_Pooling" / "config.json")
    if cfg.get("pooling_mode_cls_token"):
        return "cls"
    if cfg and not cfg.get("pooling_mode_mean_tokens", True):
        raise EmbeddingError(f"the ONNX backend supports mean or CLS pooling only ({model_dir})")
    return "mean"


def _max_seq_length(model_dir: Path, configured: int) -> int:
    native = _read_json(model_dir / "sentence_bert_config.json").get("max_seq_length")
    return min(int(native), configured) if isinstance(native, int) and native > 0 else configured


# -- inference -------------------------------------------------------------------------------------
def _load_tokenizer(model_dir: Path, max_length: int) -> Any:
    from tokenizers import Tokenizer

    path = model_dir / "tokenizer.json"
    if not path.is_file():
        raise EmbeddingError(f"the ONNX backend needs {path}")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()  # tokenizer.json pads every text to 128: pad per batch instead
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


def _encode(tokenizer: Any, texts: list[str], names: Sequence[str]) -> dict[str, np.ndarray]:
    """Tokenise ``texts`` and pad them to the batch's longest; feeds named ``names``."""
    return _pad([list(e.ids) for e in tokenizer.encode_batch(texts)], names)


def _pad(ids: list[list[int]], names: Sequence[str]) -> dict[str, np.ndarray]:
    width = max(len(i) for i in ids)
    input_ids = np.zeros((len(ids), width), dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, seq in enumerate(ids):
        input_ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
    return {n: feeds[n] for n in names}


def _pool(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """Mean (over the attention mask) or CLS pooling, then L2 normalisation."""
    if mode == "cls":
        pooled = hidden[:, 0, :]
    else:
        weights = mask[:, :, None].astype(hidden.dtype)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    out: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return out


def char_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where each of ``sentences`` sits in ``text`` (start, end), looked for in order; ``None``
    for fewer than two or when one is not found."""
    if len(sentences) < 2:
        return None
    spans: list[tuple[int, int]] = []
    at = 0
    for sent in sentences:
        start = text.find(sent, at) if sent else -1
        if start < 0:
            return None
        at = start + len(sent)
        spans.append((start, at))
    return spans


def span_pool(hidden: np.ndarray, offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
              ) -> np.ndarray | None:
    """Per span, the mean of the outputs (``hidden``: one text's, token by row) of the tokens whose
    characters (``offsets``; special tokens have none) lie inside it, L2-normalised; ``None``
    when a span has no token (cut off by the maximum sequence length)."""
    rows = []
    for start, end in spans:
        inside = [k for k, (a, b) in enumerate(offsets) if b > a and a >= start and b <= end]
        if not inside:
            return None
        rows.append(hidden[inside].mean(axis=0))
    pooled = np.asarray(rows, dtype=np.float32)
    out: np.ndarray = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return out


def _new_session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Spinning workers burn the cores that the caller, SQLite and Chroma share with us.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def _run(session: Any, feeds: dict[str, np.ndarray]) -> np.ndarray:
    out: np.ndarray = session.run(["last_hidden_state"], feeds)[0]
    return out


def token_outputs(session: Any, encoding: Any, names: Sequence[str]) -> tuple[list[tuple[int, int]], np.ndarray]:
    """One tokenised text's tokens: their character spans and outputs (unpooled), special tokens left out."""
    hidden = _run(session, _pad([list(encoding.ids)], names))[0]
    keep = [i for i, (a, b) in enumerate(encoding.offsets) if b > a]
    return [tuple(encoding.offsets[i]) for i in keep], hidden[keep]


def default_threads() -> int:
    """Intra-op threads when none are configured: the usable cores, at most 4."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 1
    return max(1, min(4, usable))


def quantize_onnx(src: str | os.PathLike[str], out: str | os.PathLike[str]) -> None:
    """Dynamic int8 quantisation (per-channel weights) of an exported model; no torch needed.

    Every matrix product with a constant weight is quantised except the feed-forward
    down-projections (weights with more rows than columns, e.g. 1536 x 384): their inputs
    are GELU outputs with outliers, which one int8 scale per call serves worst. Keeping
    them in fp32 brings int8 vectors from cosine ~0.992 to ~0.995 of fp32 (mean over LoCoMo
    turns) at the same speed, one text per call.

    Args:
        src: an fp32 ``.onnx`` file made by :func:`export_onnx`.
        out: the int8 ``.onnx`` file to write.

    Raises:
        EmbeddingError: onnx or onnxruntime's quantisation tools are missing or failed.
    """
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        model = onnx.load(str(src))
        # Tag it as pre-processed: otherwise the quantiser logs through the root logger, which
        # configures logging for the whole application.
        onnx.helper.set_model_props(
            model, {**{p.key: p.value for p in model.metadata_props}, "onnx.quant.pre_process": "onnxruntime.quant"}
        )
        shapes = {i.name: list(i.dims) for i in model.graph.initializer}
        down = [n.name for n in model.graph.node if n.op_type == "MatMul" and len(n.input) == 2
                and len(shapes.get(n.input[1], [])) == 2 and shapes[n.input[1]][0] > shapes[n.input[1]][1]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(model, str(out), weight_type=QuantType.QInt8, per_channel=True, nodes_to_exclude=down)
    except Exception as exc:
        raise EmbeddingError(f"int8 quantisation of {src} failed: {type(exc).__name__}: {exc}") from exc
