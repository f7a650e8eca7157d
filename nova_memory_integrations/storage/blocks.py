"""Pinned-block queries (a mixin of :class:`~.sqlite.SQLiteStore`), every one scoped by ``user_id``.

A block's history is its rows: each version is valid from when it was written (``valid_from``)
until the next version or the block's removal closed it (``valid_to``); ``ingested_at`` is when the
store recorded it. Nothing is deleted but by erasure (``forget``): an edit closes the current
version and adds the next, in one transaction.
"""

from __future__ import annotations

import sqlite3

from .._time import from_epoch
from ..types import PinnedBlock
from .connection import Connection
from .rows import dumps

__all__ = ["BlockQueries", "row_to_block"]


def row_to_block(row: sqlite3.Row) -> PinnedBlock:
    """Convert a ``pinned_blocks`` row to a :class:`PinnedBlock`."""
    return PinnedBlock(
        id=row["id"], user_id=row["user_id"], name=row["name"], content=row["content"], limit=row["size_limit"],
        author=row["author"], valid_from=from_epoch(row["valid_from"]),  # type: ignore[arg-type]
        valid_to=from_epoch(row["valid_to"]), ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
    )


class BlockQueries(Connection):
    """Write, close and read the versions of a user's pinned blocks."""

    def write_block(self, block: PinnedBlock, at: float) -> None:
        """Close the current version of ``block``'s name (at ``at``) and insert ``block`` as the next."""
        with self.transaction() as conn:
            conn.execute("UPDATE pinned_blocks SET valid_to = ? WHERE user_id = ? AND name = ? AND valid_to IS NULL",
                         (at, block.user_id, block.name))
            conn.execute(
                "INSERT INTO pinned_blocks (id, user_id, name, content, size_limit, author, valid_from, valid_to,"
                " ingested_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                (block.id, block.user_id, block.name, block.content, block.limit, block.author, at, at, dumps({})),
            )

    def close_block(self, user_id: str, name: str, at: float) -> bool:
        """End the current version of the block ``name`` at ``at`` (kept in history); whether there was one."""
        with self.transaction() as conn:
            cur = conn.execute("UPDATE pinned_blocks SET valid_to = ? WHERE user_id = ? AND name = ?"
                               " AND valid_to IS NULL", (at, user_id, name))
            return cur.rowcount > 0

    def pinned_blocks(self, user_id: str, *, name: str | None = None, at: float | None = None,
                      history: bool = False) -> list[PinnedBlock]:
        """The user's blocks (or the one ``name``): the versions current now, or valid at ``at``, or with
        ``history`` every version; by name, then oldest first."""
        sql = "SELECT * FROM pinned_blocks WHERE user_id = ?"
        params: list[object] = [user_id]
        if name is not None:
            sql += " AND name = ?"
            params.append(name)
        if not history:
            if at is None:
                sql += " AND valid_to IS NULL"
            else:
                sql += " AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
                params += [at, at]
        return self.readable(self.query(sql + " ORDER BY name, seq", params), "pinned_blocks", row_to_block)
