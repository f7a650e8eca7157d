"""ONNX Runtime backend of the default MiniLM embedder: torch only once, to export.

The packaged all-MiniLM-L6-v2 (or any local sentence-transformers directory of a BERT-style
encoder with mean or CLS pooling) is exported once per machine with ``torch.onnx.export``
into the model cache (``embeddings.model_cache_dir``, ``$NOVA_MEMORY_MODEL_CACHE`` or
``~/.cache/nova-memory/models``), shared by every data directory::

    <cache>/embeddings/<name>-<fingerprint>-fp32.onnx           # the exported encoder
    <cache>/embeddings/<name>-<fingerprint>-fp32.onnx.sha256    # its digest, written at export
    <cache>/embeddings/<name>-<fingerprint>-int8.onnx           # embeddings.quantize (+ .sha256)

``<fingerprint>`` hashes the source model's files and the export recipe, so a changed model
is exported again and a stale file is never used. A cached file is used only when it hashes
to its sidecar (checked once per process; a damaged file is exported again). Exported files
are memoised per process (another cache directory in the same process copies the file
instead of exporting again) and so are ONNX Runtime sessions: later processes and stores
load the file and never import torch.

Texts are tokenised with ``tokenizers`` from the model's ``tokenizer.json`` (truncated to
``max_seq_length``), sorted by length and padded per batch (little padding; the int8 model
takes one text per call, because dynamic quantisation scales activations per call), spread
over parallel one-thread sessions, mean-pooled with the attention mask and L2-normalised:
in fp32 the vectors match sentence-transformers' (cosine >= 0.999). An export is checked
against torch before it is kept.

:class:`OnnxMiniLMEmbeddings` built with ``fallback=True`` (``embeddings.backend = "auto"``)
never breaks: if onnxruntime, the export or the session fails, it logs ONE warning and
embeds with sentence-transformers (torch) from then on, queries and documents alike, so
vectors stay comparable.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .._threads import Pool, background_step, throttled
from ..config import model_cache_dir
from ..errors import EmbeddingError
from ._cache_file import file_lock, forget, install, is_intact, recorded_digest, sha256_file, sidecar, tmp_name
from ._onnx_runtime import (
    _check_modules,
    _encode,
    _load_tokenizer,
    _max_seq_length,
    _new_session,
    _pad,
    _pool,
    _pooling_mode,
    _run,
    char_spans,
    default_threads,
    quantize_onnx,
    span_pool,
    token_outputs,
)
from .base import (
    PACKAGED_MODEL_NAME,
    embed_sentences,
    is_packaged_model,
    minilm_space,
    packaged_model_path,
    quiet_loading,
)
from .similarity import unit_rows
from .torch import MiniLMEmbeddings

__all__ = ["OnnxMiniLMEmbeddings", "export_onnx", "model_fingerprint", "onnx_model_file", "quantize_onnx"]

logger = logging.getLogger(__name__)

EXPORT_RECIPE = "st-onnx-v2"
"""Part of every cache file's fingerprint: bump when the export or quantisation changes."""
OPSET = 17
FP32_MIN_COSINE = 0.999
"""An fp32 export whose vectors differ more than this from torch's is rejected."""
INT8_MIN_COSINE = 0.90
"""An int8 model this far from its fp32 source on any probe is rejected (broken int8 maths, e.g.
saturating kernels). A sound one scores ~0.996 on average and lower (~0.97) on a few short texts:
dynamic quantisation scales activations per call (the probes go in one batch here)."""
_PROBES = (
    "I moved to Berlin last spring and started a new job at a small robotics startup.",
    "What did I say about the dentist?",
    "ok",
    "My sister Maya lives in Lisbon; she works on a vegan recipe app and loves kayaking on weekends.",
)

Quantize = bool | Literal["documents"]
"""``False``: fp32 everywhere; ``True``: int8 everywhere; ``"documents"``: int8 for indexed texts,
fp32 for queries (int8 ingest speed, fp32 query precision: the query side of the cosine is exact)."""

_INLINE_MAX = 16
"""Document calls of at most this many model runs embed in the caller's thread, not the workers."""
_lock = threading.RLock()
_fingerprints: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}
_files: dict[str, Path] = {}  # "<name>-<fingerprint>-<variant>" -> a checked file (any cache dir)
_sessions: dict[tuple[str, int], Any] = {}  # (cache key, threads) -> onnxruntime.InferenceSession


# -- the cache file --------------------------------------------------------------------------------
def _source_files(model_dir: Path) -> list[Path]:
    return sorted(p for p in model_dir.rglob("*") if p.is_file() and not p.name.startswith("."))


def model_fingerprint(model_dir: str | os.PathLike[str]) -> str:
    """A 16-hex-digit hash of a model directory's files and the export recipe (memoised).

    Args:
        model_dir: a local sentence-transformers model directory.

    Returns:
        The fingerprint that names the directory's exported ONNX files.
    """
    root = Path(model_dir).resolve()
    files = _source_files(root)
    stats = tuple((str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    key = (str(root), stats)
    with _lock:
        known = _fingerprints.get(key)
    if known is not None:
        return known
    digest = hashlib.sha256(f"{EXPORT_RECIPE}\0opset{OPSET}\0".encode())
    for path, (rel, size, _) in zip(files, stats):
        digest.update(f"{rel}\0{size}\0".encode())
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    value = digest.hexdigest()[:16]
    with _lock:
        _fingerprints[key] = value
    return value


def _model_name(model_dir: Path) -> str:
    if is_packaged_model(model_dir):
        return PACKAGED_MODEL_NAME
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in model_dir.resolve().name)
    return name or "model"


def onnx_model_file(
    model_dir: str | os.PathLike[str], cache_dir: str | os.PathLike[str], *, quantize: bool = False
) -> Path:
    """The exported (and, with ``quantize``, int8-quantised) model file inside ``cache_dir``.

    Reuses a file already there when it hashes to its ``.sha256`` sidecar (checked once per
    process); else copies one this process already made in another directory; else exports
    with torch (and quantises the fp32 file, without torch when it exists). A file without a
    sidecar, or whose bytes changed (truncated, edited, disk errors), is made again. Files are
    written under a temporary name and renamed once checked, and writers of one file take a
    lock: a crash never leaves a half-written model behind, and two processes starting at
    once export once.

    Args:
        model_dir: a local sentence-transformers model directory.
        cache_dir: where the files live, e.g. ``<model cache>/embeddings``; created if missing.
        quantize: return the dynamic int8 model instead of the fp32 export.

    Returns:
        The path of the ``.onnx`` file.

    Raises:
        EmbeddingError: the model cannot be exported or quantised (see the cause).
    """
    src = Path(model_dir)
    cache = Path(cache_dir)
    stem = f"{_model_name(src)}-{model_fingerprint(src)}"
    variant = "int8" if quantize else "fp32"
    target = cache / f"{stem}-{variant}.onnx"
    with _lock:
        if not is_intact(target):
            cache.mkdir(parents=True, exist_ok=True)
            with file_lock(cache / f".{target.stem}.lock"):
                if not is_intact(target):  # not made meanwhile by another process either
                    _make(src, cache, target, quantize)
        known = _files.get(target.stem)
        if known is None or not known.is_file():
            _files[target.stem] = target
        return target


def _make(src: Path, cache: Path, target: Path, quantize: bool) -> None:
    """Write ``target`` and its sidecar: a copy of a checked file of this process, or a new export."""
    if target.exists():
        logger.info("nova-memory: cached ONNX model %s is unchecked or damaged (sha256); making it again", target)
    forget(target)
    known = _files.get(target.stem)
    tmp = tmp_name(target)
    try:
        if known is not None and known != target and is_intact(known):
            digest = sha256_file(known, copy_to=tmp)
            if digest != recorded_digest(known):
                raise EmbeddingError(f"copying {known} to {target} changed its bytes")
        elif quantize:
            fp32 = onnx_model_file(src, cache, quantize=False)
            quantize_onnx(fp32, tmp)
            _check_against(fp32, tmp, src, INT8_MIN_COSINE)
            digest = sha256_file(tmp)
        else:
            export_onnx(src, tmp)
            digest = sha256_file(tmp)
        install(tmp, target, digest)
    finally:
        tmp.unlink(missing_ok=True)


# -- export and quantisation (the only code that imports torch) ------------------------------------
def export_onnx(model_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> None:
    """Export a sentence-transformers directory's encoder to ONNX with ``torch.onnx.export``.

    The graph maps ``input_ids``, ``attention_mask`` (and ``token_type_ids`` when the model
    takes them), with dynamic batch and sequence axes, to ``last_hidden_state``; pooling
    and normalisation run in numpy. The export is checked against torch on a few probe
    sentences (cosine >= :data:`FP32_MIN_COSINE`) before this returns.

    Args:
        model_dir: a local sentence-transformers model directory.
        out: the ``.onnx`` file to write.

    Raises:
        EmbeddingError: torch or transformers are missing, the export failed or its
            output differs from torch's.
    """
    src = Path(model_dir)
    _check_modules(src)
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbeddingError(f"exporting the embedding model to ONNX needs torch and transformers: {exc}") from exc
    try:
        with quiet_loading():
            try:
                model = AutoModel.from_pretrained(str(src), local_files_only=True, attn_implementation="eager")
            except (TypeError, ValueError):  # older transformers or a model without that option
                model = AutoModel.from_pretrained(str(src), local_files_only=True)
        model.eval()
        names = ["input_ids", "attention_mask"]
        if "token_type_ids" in inspect.signature(model.forward).parameters:
            names.append("token_type_ids")

        class _Encoder(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *inputs: Any) -> Any:
                return self.model(**dict(zip(names, inputs))).last_hidden_state

        tokenizer = _load_tokenizer(src, _max_seq_length(src, 512))
        feeds = _encode(tokenizer, list(_PROBES), names)
        args = tuple(torch.tensor(feeds[n]) for n in names)
        kwargs: dict[str, Any] = {}
        if "dynamo" in inspect.signature(torch.onnx.export).parameters:
            kwargs["dynamo"] = False  # the TorchScript exporter: one self-contained file
        axes = {n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]}
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer and deprecation chatter
            reference = _Encoder()(*args).numpy().copy()  # before the export: tracing leaves the module unfit to run
            torch.onnx.export(_Encoder(), args, str(out), input_names=names, output_names=["last_hidden_state"],
                              dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True, **kwargs)
    except EmbeddingError:
        raise
    except Exception as exc:
        raise EmbeddingError(f"ONNX export of {src} failed: {type(exc).__name__}: {exc}") from exc
    mask = feeds["attention_mask"]
    expected = _pool(reference, mask, _pooling_mode(src))
    got = _pool(_run(_new_session(Path(out), 1), feeds), mask, _pooling_mode(src))
    _require_close(expected, got, FP32_MIN_COSINE, f"ONNX export of {src}")


def _check_against(fp32: Path, int8: Path, model_dir: Path, min_cosine: float) -> None:
    tokenizer = _load_tokenizer(model_dir, _max_seq_length(model_dir, 512))
    ref = _new_session(fp32, 1)
    feeds = _encode(tokenizer, list(_PROBES), [i.name for i in ref.get_inputs()])
    mode = _pooling_mode(model_dir)
    expected = _pool(_run(ref, feeds), feeds["attention_mask"], mode)
    got = _pool(_run(_new_session(int8, 1), feeds), feeds["attention_mask"], mode)
    _require_close(expected, got, min_cosine, f"int8 model {int8.name}")


def _require_close(expected: np.ndarray, got: np.ndarray, min_cosine: float, what: str) -> None:
    cosine = float(np.min(np.sum(unit_rows(expected) * unit_rows(got), axis=1)))
    if not cosine >= min_cosine:  # also rejects NaN
        raise EmbeddingError(f"{what} is off: cosine {cosine:.5f} to the reference (needs >= {min_cosine})")


class OnnxMiniLMEmbeddings:
    """MiniLM sentence embeddings on ONNX Runtime, exported once into ``cache_dir``.

    Setup:
        ``onnxruntime`` and ``onnx`` are dependencies; torch is imported only to export the
        model the first time a machine (a model cache) uses it.

    Instantiate:
        .. code-block:: python

            emb = OnnxMiniLMEmbeddings()                                 # int8 docs, fp32 queries
            emb = OnnxMiniLMEmbeddings(quantize=False)                   # fp32
            emb = OnnxMiniLMEmbeddings(cache_dir="/srv/models/onnx", quantize=True)  # int8, own cache

    Usage:
        .. code-block:: python

            vectors = emb.embed_documents(["I moved to Berlin"])  # 384-d, L2-normalised
            query = emb.embed_query("Where do I live?")            # the fp32 model
            emb.backend                                            # "onnx-int8-documents" once loaded

    Args:
        model_path: a local sentence-transformers directory; default the packaged
            all-MiniLM-L6-v2.
        cache_dir: where the exported model files live; default ``<model cache>/embeddings``
            (:func:`~nova_memory_integrations.config.model_cache_dir`); nothing is written
            elsewhere.
        quantize: ``"documents"`` (the default): texts to index (``embed_documents``) go
            through the dynamic int8 model, ~1.3x the texts/s of fp32, and queries
            (``embed_query``) through the fp32 export, so only one side of each cosine
            carries int8 error (int8 vectors are within cosine ~0.996 of fp32); ``True``:
            int8 for both; ``False``: fp32 for both (matches sentence-transformers). If the
            int8 model cannot be made, ``"documents"`` logs one warning and uses fp32.
        batch_size: texts per fp32 ONNX Runtime call (after sorting by length); the int8
            model embeds one text per call, so a text's vector never depends on its
            batch-mates (dynamic quantisation scales activations per call).
        max_seq_length: tokens per text (longer texts are truncated).
        threads: CPU threads: documents are split over this many workers, each running a
            one-thread session; a query runs on one session with this many intra-op
            threads. Default :func:`default_threads`.
        fallback: when the ONNX path fails, log one warning and use sentence-transformers
            (torch); ``False`` raises :class:`EmbeddingError` instead.
        torch_threads: torch threads of that fallback.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        quantize: Quantize = "documents",
        batch_size: int = 16,
        max_seq_length: int = 128,
        threads: int | None = None,
        fallback: bool = True,
        torch_threads: int | None = None,
    ) -> None:
        self.model_path = Path(model_path) if model_path else packaged_model_path()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else model_cache_dir() / "embeddings"
        if quantize not in (True, False, "documents"):
            raise ValueError(f"quantize must be True, False or 'documents', not {quantize!r}")
        self.quantize: Quantize = quantize
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.threads = threads or default_threads()
        self.fallback = fallback
        self.torch_threads = torch_threads
        self.model_file: Path | None = None
        self._session: Any = None  # documents
        self._query_session: Any = None
        self._variants = ("", "")  # (documents, queries) as loaded
        self._executor: Pool | None = None
        self._tokenizer: Any = None
        self._names: list[str] = []
        self._pooling = "mean"
        self._torch: MiniLMEmbeddings | None = None
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        """What embeds: ``onnx-int8-documents`` (int8 documents, fp32 queries), ``onnx-fp32``,
        ``onnx-int8`` or ``torch`` (the fallback); ``unloaded`` before first use."""
        if self._torch is not None:
            return "torch"
        if self._session is None:
            return "unloaded"
        docs, queries = self._variants
        return f"onnx-{docs}" if docs == queries else f"onnx-{docs}-documents"

    def load(self) -> OnnxMiniLMEmbeddings:
        """Load now (export first if needed) instead of on the first embedding; returns self.

        Raises:
            EmbeddingError: the ONNX path failed and ``fallback`` is off, or the fallback failed.
        """
        if self._session is None and self._torch is None:
            with self._lock:
                if self._session is None and self._torch is None:
                    try:
                        self._load_onnx()
                    except Exception as exc:
                        if not self.fallback:
                            if isinstance(exc, EmbeddingError):
                                raise
                            raise EmbeddingError(f"ONNX embedding backend failed: {exc}") from exc
                        logger.warning(
                            "nova-memory: ONNX embedding backend unavailable (%s: %s); "
                            "using sentence-transformers (torch) instead", type(exc).__name__, exc,
                        )
                        torch_model = MiniLMEmbeddings(self.model_path, batch_size=self.batch_size,
                                                       max_seq_length=self.max_seq_length,
                                                       torch_threads=self.torch_threads)
                        torch_model.embed_query("warm up")  # fail here, not on the first real text
                        self._torch = torch_model
        return self

    def _load_onnx(self) -> None:
        if not self.model_path.is_dir():
            raise EmbeddingError(f"embedding model directory not found: {self.model_path}")
        import onnxruntime  # noqa: F401 - fail early (and fall back) when it is missing

        _check_modules(self.model_path)
        pooling = _pooling_mode(self.model_path)
        tokenizer = _load_tokenizer(self.model_path, _max_seq_length(self.model_path, self.max_seq_length))
        docs, queries = ("int8" if self.quantize else "fp32"), ("int8" if self.quantize is True else "fp32")
        query_session, _ = self._open(queries == "int8", self.threads)
        try:
            doc_session, doc_file = self._open(docs == "int8", 1)
        except Exception as exc:  # "documents": the fp32 model already works, keep it
            if docs == queries:
                raise
            logger.warning("nova-memory: int8 embedding model unavailable (%s: %s); embedding documents "
                           "with the fp32 model too", type(exc).__name__, exc)
            docs = queries
            doc_session, doc_file = self._open(False, 1)
        self._names = [i.name for i in doc_session.get_inputs()]
        self._tokenizer, self._pooling, self.model_file = tokenizer, pooling, doc_file
        self._variants = (docs, queries)
        self._query_session = query_session
        self._session = doc_session

    def _open(self, quantize: bool, threads: int) -> tuple[Any, Path]:
        """The (process-wide shared) session of the fp32 or int8 file, and that file."""
        path = onnx_model_file(self.model_path, self.cache_dir, quantize=quantize)
        key = (path.name, threads)
        with _lock:
            session = _sessions.get(key)
            if session is None:
                try:
                    session = _new_session(path, threads)
                except Exception as exc:  # a damaged cache file (disk full, edited): make it again, once
                    logger.info("nova-memory: cached ONNX model %s unusable (%s); exporting it again", path, exc)
                    if _files.get(path.stem) == path:
                        del _files[path.stem]
                    forget(path)
                    sidecar(path).unlink(missing_ok=True)
                    path.unlink(missing_ok=True)
                    path = onnx_model_file(self.model_path, self.cache_dir, quantize=quantize)
                    session = _new_session(path, threads)
                _sessions[key] = session
        return session, path

    @property
    def embedding_space(self) -> str:
        """The vector space written: torch, fp32 and int8 of one model share it."""
        return minilm_space(self.model_path)

    @property
    def dimension(self) -> int:
        """Embedding dimension (loads the model)."""
        return len(self.embed_query("dimension"))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts (L2-normalised).

        Raises:
            EmbeddingError: loading or inference failed.
        """
        if not texts:
            return []
        self.load()
        if self._torch is not None:
            return self._torch.embed_documents(texts)
        return self.embed_array(texts).tolist()  # type: ignore[no-any-return]

    def embed_array(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """Like :meth:`embed_documents` but one float32 array (rows in input order).

        Args:
            texts: the texts.
            query: embed them as queries (the fp32 model when ``quantize="documents"``).

        Raises:
            EmbeddingError: loading or inference failed.
        """
        self.load()
        if self._torch is not None:
            return np.asarray(self._torch.embed_documents(list(texts)), dtype=np.float32)
        return self._embed(texts, query=query)[0]

    def embed_spans(
        self, texts: Sequence[str], sentences: Sequence[Sequence[str]]
    ) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """:meth:`embed_array` of documents and, from the same pass, a vector per sentence of each
        text (``sentences[n]``, substrings of ``texts[n]`` in order): the mean of its tokens'
        outputs, L2-normalised (``None`` for a text given fewer than two, or one whose sentences
        are not all found or not all within ``max_seq_length``). The torch fallback embeds the
        sentences on their own.

        Raises:
            EmbeddingError: loading or inference failed.
        """
        self.load()
        if self._torch is not None:
            return self.embed_array(texts), embed_sentences(self.embed_array, sentences)
        return self._embed(texts, query=False, sentences=sentences)

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """Per text, its tokens' character spans and their outputs (the last hidden state, unpooled; one row
        per token, special tokens left out), from the documents' session, one text per run.

        Raises:
            EmbeddingError: loading or inference failed, or the torch fallback runs (no token outputs).
        """
        self.load()
        if self._torch is not None:
            raise EmbeddingError("token outputs need the ONNX backend (the torch fallback is running)")
        out = []
        background = throttled()  # consolidation's work: reads in flight go first
        try:
            for encoding in self._tokenizer.encode_batch(list(texts)):
                with background_step(background):
                    out.append(token_outputs(self._session, encoding, self._names))
        except Exception as exc:
            raise EmbeddingError(f"ONNX token outputs failed: {type(exc).__name__}: {exc}") from exc
        return out

    def _embed(
        self, texts: Sequence[str], *, query: bool, sentences: Sequence[Sequence[str]] | None = None
    ) -> tuple[np.ndarray, list[np.ndarray | None]]:
        session = self._query_session if query else self._session
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [list(e.ids) for e in encodings]
        spans = [char_spans(texts[n], sentences[n]) if sentences is not None else None for n in range(len(ids))]
        # int8 activations get one quantisation scale per call: one text per call keeps each
        # text's vector independent of its batch-mates (and a little closer to fp32).
        size = 1 if self._variants[1 if query else 0] == "int8" else self.batch_size
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))  # similar lengths share a batch
        batches = [order[start:start + size] for start in range(0, len(order), size)]
        per_span: list[np.ndarray | None] = [None] * len(ids)
        background = not query and throttled()  # an indexing batch: reads in flight go first

        def work(part: list[list[int]]) -> list[tuple[list[int], np.ndarray]]:
            out = []
            for rows in part:
                with background_step(background):  # one core while reads are in flight; raises at exit
                    feeds = _pad([ids[i] for i in rows], self._names)
                    hidden = _run(session, feeds)
                    out.append((rows, _pool(hidden, feeds["attention_mask"], self._pooling)))
                    for at, i in enumerate(rows):
                        if (where := spans[i]) is not None:
                            per_span[i] = span_pool(hidden[at], encodings[i].offsets, where)
            return out

        try:
            if query or self.threads == 1 or len(batches) <= _INLINE_MAX:
                # small calls (a read scoring a few unindexed turns) run in the caller's thread:
                # they never queue behind a large indexing batch on the shared workers
                done = work(batches)
            else:  # documents: a one-thread session run by `threads` workers in parallel
                parts = [batches[k::self.threads] for k in range(self.threads)]
                done = [d for part in self._workers().map(work, parts) for d in part]
        except Exception as exc:
            raise EmbeddingError(f"ONNX embedding failed: {type(exc).__name__}: {exc}") from exc
        out = np.empty((len(ids), done[0][1].shape[1] if done else 0), dtype=np.float32)
        for rows, vectors in done:
            out[rows] = vectors
        return out, per_span

    def _workers(self) -> Pool:
        with self._lock:
            self._executor = self._executor or Pool(self.threads, "nova-memory-embed")  # stopped at exit after
            return self._executor  # the indexers that use it

    def embed_query(self, text: str) -> list[float]:
        """Embed one query text (fp32 unless ``quantize=True``; the fallback embeds everything)."""
        self.load()
        if self._torch is not None:
            return self._torch.embed_query(text)
        return self.embed_array([text], query=True)[0].tolist()  # type: ignore[no-any-return]
