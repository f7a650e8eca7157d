"""LangGraph store items: JSON documents by ``(user, scope, key)`` (a mixin of :class:`~.sqlite.SQLiteStore`).

The rows behind :class:`nova_memory_integrations.langgraph.NovaLangGraphStore`, read and
written by the items service (``items/service.py``, ``NovaStore.items``). Every method takes
``user_id`` and filters by it, so no caller can reach another user's items, except the two
whose names say they span users: :meth:`ItemQueries.unindexed_items` (recovery) and
:meth:`ItemQueries.item_scopes_of_every_user` (an unbound store's namespace listing).
A *scope* is a namespace without the user's label, its labels joined by ``.`` (LangGraph
forbids ``.`` in a label, so the text is unambiguous; ``""`` is the empty scope).

The documents' vectors live in their own per-user Chroma collections (:func:`item_index`,
on the engine's Chroma client): ``vectors`` counts the vectors of an item there, whose
ids are :func:`item_vector_ids`, and ``indexed`` says whether they are this version's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._time import from_epoch
from ..errors import StorageError
from .connection import Connection
from .vectors import VectorIndex, VectorKind

__all__ = ["ITEM_KIND", "ItemQueries", "StoredItem", "item_index", "item_vector_ids", "join_scope", "split_scope"]

ITEM_KIND: VectorKind = "episode"
"""The one kind the items' vector index holds: its collections are ``{prefix}_items_episode_{hash}``."""
_COLUMNS = "id, user_id, scope, key, value, index_paths, vectors, created_at, updated_at, indexed"


def item_index(vectors: VectorIndex) -> VectorIndex:
    """The items' vector index: per-user collections on ``vectors``' Chroma client (or rows of its
    pgvector table), prefixed ``{prefix}_items`` (out of sight of the engine's index, whose
    ``reset`` leaves them)."""
    return vectors.sibling(f"{vectors.prefix}_items")


def item_vector_ids(item_id: str, start: int, stop: int) -> list[str]:
    """The ids of vectors ``start .. stop - 1`` of an item (one per indexed text)."""
    return [f"{item_id}:{n}" for n in range(start, stop)]


def join_scope(labels: Sequence[str]) -> str:
    """The stored text of a scope (labels never contain ``.``)."""
    return ".".join(labels)


def split_scope(text: str) -> tuple[str, ...]:
    """The labels of a stored scope."""
    return tuple(text.split(".")) if text else ()


@dataclass(frozen=True)
class StoredItem:
    """One item as stored: the document, where it lives, its index state and times."""

    id: str
    user_id: str
    scope: tuple[str, ...]
    key: str
    value: dict[str, Any]
    index_paths: tuple[str, ...]
    vectors: int
    created_at: datetime
    updated_at: datetime
    indexed: bool


def _row_to_item(row: sqlite3.Row) -> StoredItem:
    value = json.loads(row["value"])
    paths = json.loads(row["index_paths"])
    if not isinstance(value, dict) or not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError("value must be a JSON object and index_paths a list of strings")
    if not isinstance(row["scope"], str) or not isinstance(row["key"], str) or not isinstance(row["vectors"], int):
        raise ValueError("scope and key must be text, vectors an integer")
    return StoredItem(
        id=row["id"],
        user_id=row["user_id"],
        scope=split_scope(row["scope"]),
        key=row["key"],
        value=value,
        index_paths=tuple(paths),
        vectors=row["vectors"],
        created_at=from_epoch(row["created_at"]),  # type: ignore[arg-type]
        updated_at=from_epoch(row["updated_at"]),  # type: ignore[arg-type]
        indexed=bool(row["indexed"]),
    )


def _within(scope: str, column: str = "scope") -> tuple[str, list[Any]]:
    """SQL condition (and its parameters) for the scopes equal to or under ``scope``."""
    if not scope:
        return "", []
    return f" AND ({column} = ? OR substr({column}, 1, ?) = ?)", [scope, len(scope) + 1, scope + "."]


class ItemQueries(Connection):
    """Put, get, list, search and erase a user's LangGraph store items."""

    def _items(self, sql: str, params: Sequence[Any]) -> list[StoredItem]:
        return self.readable(self.query(sql, params), "items", _row_to_item)

    def get_item(self, user_id: str, scope: str, key: str) -> StoredItem | None:
        """The user's item at ``(scope, key)``, if any."""
        found = self._items(
            f"SELECT {_COLUMNS} FROM items WHERE user_id = ? AND scope = ? AND key = ?", [user_id, scope, key]
        )
        return found[0] if found else None

    def list_items(self, user_id: str, scope: str, *, limit: int | None = None, offset: int = 0) -> list[StoredItem]:
        """The user's items in ``scope`` and below, most recently updated first."""
        where, params = _within(scope)
        sql = f"SELECT {_COLUMNS} FROM items WHERE user_id = ?{where} ORDER BY updated_at DESC, seq DESC"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params += [limit, offset]
        return self._items(sql, [user_id, *params])

    def item_scopes(self, user_id: str) -> list[str]:
        """Every scope holding an item of the user, sorted."""
        return [
            str(r[0])
            for r in self.query("SELECT DISTINCT scope FROM items WHERE user_id = ? ORDER BY scope", [user_id])
        ]

    def item_scopes_of_every_user(self) -> list[tuple[str, str]]:
        """``(user_id, scope)`` of every scope holding an item, of every user, sorted: for
        server-side code that may name any user (an unbound LangGraph store's listing)."""
        return [
            (str(r[0]), str(r[1]))
            for r in self.query("SELECT DISTINCT user_id, scope FROM items ORDER BY user_id, scope")
        ]

    def fts_items(self, user_id: str, match: str, scope: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over the indexed text of the user's items in ``scope`` and below: ``(item id, score)``,
        higher is better."""
        where, params = _within(scope, "i.scope")
        sql = (
            "SELECT i.id, -bm25(items_fts) AS s FROM items_fts JOIN items i ON i.seq = items_fts.rowid"
            f" WHERE items_fts MATCH ? AND i.user_id = ?{where}"
            " ORDER BY s DESC LIMIT ?"
        )
        return [(str(r[0]), float(r[1])) for r in self.query(sql, [match, user_id, *params, limit])]

    def put_item(
        self,
        user_id: str,
        scope: str,
        key: str,
        value: str,
        index_paths: str,
        search_text: str,
        at: float,
        item_id: str,
    ) -> tuple[str, int]:
        """Insert the item, or replace the document of the one at ``(scope, key)`` (keeping its id
        and ``created_at``); joins the caller's transaction.

        Returns:
            The item's id and how many of its vectors the index holds (now of a former version).
        """
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO items (id, user_id, scope, key, value, index_paths, search_text, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, scope, key) DO UPDATE SET"
                " value = excluded.value, index_paths = excluded.index_paths, search_text = excluded.search_text,"
                " updated_at = excluded.updated_at, indexed = 0",
                (item_id, user_id, scope, key, value, index_paths, search_text, at, at),
            )
            row = conn.execute(
                "SELECT id, vectors FROM items WHERE user_id = ? AND scope = ? AND key = ?", (user_id, scope, key)
            ).fetchone()
        return str(row[0]), int(row[1])

    def delete_item(self, user_id: str, scope: str, key: str) -> tuple[str, int] | None:
        """Delete the user's item at ``(scope, key)``; its id and vector count, or ``None`` if absent."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT id, vectors FROM items WHERE user_id = ? AND scope = ? AND key = ?", (user_id, scope, key)
            ).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM items WHERE user_id = ? AND id = ?", (user_id, row[0]))
        return str(row[0]), int(row[1])

    def mark_item_indexed(self, user_id: str, item_id: str, vectors: int) -> None:
        """Record that the index holds ``vectors`` vectors of the item's current version."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE items SET indexed = 1, vectors = ? WHERE user_id = ? AND id = ?", (vectors, user_id, item_id)
            )

    def unindexed_items(self, limit: int) -> list[StoredItem]:
        """Items (any user) whose vectors are not those of their current version, oldest first."""
        return self._items(f"SELECT {_COLUMNS} FROM items WHERE indexed = 0 ORDER BY seq LIMIT ?", [limit])

    def reset_items_indexed(self) -> None:
        """Mark every item as having no vector (after the items' index was dropped)."""
        with self.transaction() as conn:
            conn.execute("UPDATE items SET indexed = 0, vectors = 0")

    def delete_user_items(self, user_id: str) -> int:
        """Delete every item of a user (then scrub them from the files); returns how many."""
        with self.transaction() as conn:
            removed = conn.execute("DELETE FROM items WHERE user_id = ?", (user_id,)).rowcount
        self.scrub_items()
        return int(removed)

    def scrub_items(self) -> None:
        """Merge the items' FTS segments (dropping deleted terms), then :meth:`scrub`; a no-op inside
        an open transaction."""
        with self._lock:
            self._check_open()
            if self._depth:
                return
            try:
                self._conn.execute("INSERT INTO items_fts (items_fts) VALUES ('optimize')")
            except sqlite3.Error as exc:
                raise StorageError(f"scrub failed: {exc}") from exc
        self.scrub()
