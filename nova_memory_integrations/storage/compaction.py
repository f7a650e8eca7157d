"""Lifecycle writes that change an episode in place (a mixin of :class:`~.sqlite.SQLiteStore`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .connection import Connection
from .rows import dumps

__all__ = ["CompactionQueries"]


class CompactionQueries(Connection):
    """Rewrite a user's episodes (the second compaction, summary to keywords)."""

    def rewrite_episodes(self, user_id: str, changes: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[str]:
        """Give the user's episodes new ``(id, content, metadata)`` in one transaction; each is
        marked for indexing again (the FTS trigger follows the content). Returns the ids changed."""
        changed: list[str] = []
        with self.transaction() as conn:
            for episode_id, content, metadata in changes:
                cur = conn.execute("UPDATE episodes SET content = ?, metadata = ?, indexed = 0"
                                   " WHERE user_id = ? AND id = ?", (content, dumps(dict(metadata)), user_id,
                                                                     episode_id))
                if cur.rowcount:
                    changed.append(episode_id)
        return changed
