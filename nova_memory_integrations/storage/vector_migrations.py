"""One-time rewrites of what earlier versions left in the Chroma vector index (the live index
is :mod:`.vectors`); the engine's named migrations run them (``engine/migrations.py``).

- :func:`drop_shared_collections`: the earliest versions kept three shared collections
  (``{prefix}_episodes``, ``{prefix}_facts``, ``{prefix}_rules``); they are dropped once SQLite
  (the system of record) has marked every row for indexing again, into per-user collections.
- :func:`strip_text`: versions before digests kept the text as documents and metadata; their
  collections are rewritten with ids, vectors and :func:`clean_metadata` only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..errors import StorageError
from .vectors import _HASHED, _LIST_PAGE, _UPSERT_ROWS, COPY_SUFFIX, VectorIndex, _digest

__all__ = ["TEXT_FREE_KEY", "clean_metadata", "drop_shared_collections", "strip_text"]

logger = logging.getLogger(__name__)

TEXT_FREE_KEY = "vector_index_text_free"
"""``meta`` flag of stores made before the ``migrations`` table: ``"1"`` once :func:`strip_text`
had left no text in their collections (the migration ``text_free_vector_index`` reads it)."""
_FILTER_KEY = re.compile(r"session_id|s\d+")
"""Metadata keys earlier versions wrote that queries filter on (kept, as digests, by :func:`strip_text`)."""


def clean_metadata(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """Metadata an earlier version wrote, as this one writes it: ``user_id``, the filter keys as
    digests, nothing else (idempotent)."""
    out: dict[str, Any] = {}
    for key, value in (meta or {}).items():
        if key == "user_id" or key.startswith(_HASHED):
            out[key] = value
        elif _FILTER_KEY.fullmatch(key):
            out[_HASHED + key] = _digest(value)
    return out


def drop_shared_collections(index: VectorIndex, mark_for_reindex: Callable[[], None]) -> bool:
    """Drop the shared collections of the earliest versions, after ``mark_for_reindex`` flagged every row.

    Args:
        index: the vector index.
        mark_for_reindex: marks every SQLite row as not indexed, so the indexer re-creates the
            vectors in per-user collections; it runs before anything is dropped, so a crash in
            between only repeats the migration.

    Returns:
        Whether shared collections were found (and dropped).

    Raises:
        StorageError: Chroma fails.
    """
    legacy = index.legacy_collections()
    if not legacy:
        return False
    logger.warning("nova-memory: migrating the vector index to per-user collections: dropping %s and "
                   "re-indexing every row from SQLite in the background", ", ".join(legacy))
    mark_for_reindex()
    index._drop(legacy)
    return True


def strip_text(index: VectorIndex) -> int:
    """Rewrite the index's collections that hold text (documents, or metadata an earlier version
    wrote) with their ids, vectors and :func:`clean_metadata` metadata only.

    A collection is copied to ``{name}.m``, dropped, and the copy renamed to ``{name}``: no
    vector is embedded again, and a crash at any point is repaired by the next call (a copy
    whose original still exists is discarded and made again; a copy whose original is gone is
    complete and takes its name). Idempotent: a clean collection is left as it is. Follow it
    with :meth:`~.vectors.VectorIndex.scrub` (the old text stays in Chroma's free pages).

    Returns:
        How many collections were rewritten (or finished).

    Raises:
        StorageError: Chroma fails.
    """
    tmp = re.compile(rf"(?P<base>{index._own.pattern}){re.escape(COPY_SUFFIX)}")
    listed = {c.name: c for c in index._list()}
    done = 0
    try:
        for name, col in listed.items():
            found = tmp.fullmatch(name)
            if found is None:
                continue
            if found["base"] in listed:
                index._drop([name])  # interrupted while copying: copied again below
            else:
                col.modify(name=found["base"])  # interrupted after dropping the original: the copy is whole
                done += 1
        for col in index.collections():
            holds_text = _holds_text(col)
            index.zero_unused(col)  # a first read writes the files of a collection not persisted yet
            if holds_text:
                _rewrite(index, col)
                done += 1
    except StorageError:
        raise
    except Exception as exc:
        raise StorageError(f"cannot remove the text from Chroma's collections: {exc}") from exc
    if done:
        logger.warning("nova-memory: removed the text Chroma held (documents, metadata) from %d collection(s) "
                       "of %r: Chroma keeps ids and vectors only", done, index.prefix)
    return done


def _pages(col: Any, include: list[str]) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        page = col.get(include=include, limit=_LIST_PAGE, offset=offset)
        ids = list(page.get("ids") or [])
        if not ids:
            return
        yield page
        offset += len(ids)


def _holds_text(col: Any) -> bool:
    for page in _pages(col, ["documents", "metadatas"]):
        docs = page.get("documents") or []
        metas = page.get("metadatas") or []
        if any(d is not None for d in docs) or any(dict(m or {}) != clean_metadata(m) for m in metas):
            return True
    return False


def _rewrite(index: VectorIndex, col: Any) -> None:
    name = col.name
    copy: Any = index.client.create_collection(name=name + COPY_SUFFIX, embedding_function=None,
                                               metadata=dict(col.metadata or {}))
    for page in _pages(col, ["embeddings", "metadatas"]):
        ids = list(page["ids"])
        metas = list(page.get("metadatas") or [None] * len(ids))
        for start in range(0, len(ids), _UPSERT_ROWS):
            part = slice(start, start + _UPSERT_ROWS)
            copy.add(ids=ids[part], embeddings=[[float(x) for x in e] for e in page["embeddings"][part]],
                     metadatas=[clean_metadata(m) for m in metas[part]])
    index.zero_unused(copy)
    index._drop([name])  # forgets the cached handle too
    copy.modify(name=name)
