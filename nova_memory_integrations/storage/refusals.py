"""Named, user-scoped queries for the facts a declared schema refused (``refused_facts``).

A mixin of :class:`~.sqlite.SQLiteStore`. A refusal is written inside the consolidation
transaction that processed its episode, so the episode is marked processed exactly when the
record of what it could not store exists; erasing the episode or the user erases it too.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._time import from_epoch
from ..types import RefusedFact, new_id
from .connection import Connection
from .rows import chunks

__all__ = ["RefusalQueries"]


class RefusalQueries(Connection):
    """Refused facts, all scoped by ``user_id``."""

    def add_refused_fact(self, user_id: str, *, episode_id: str | None, kind: str, subject: str, predicate: str,
                         obj: str, rule: str, origin: str, at: float) -> str:
        """Record one refused fact (inside the caller's transaction if any); returns its id."""
        rid = new_id("rf")
        with self.transaction() as conn:
            conn.execute("INSERT INTO refused_facts (id, user_id, episode_id, kind, subject, predicate, object, rule,"
                         " origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (rid, user_id, episode_id, kind, subject, predicate, obj, rule, origin, at))
        return rid

    def refused_facts(self, user_id: str, *, kind: str | None = None, limit: int = 100) -> list[RefusedFact]:
        """The user's refused facts (of one ``kind``, when given), newest first."""
        sql, params = "SELECT * FROM refused_facts WHERE user_id = ?", [user_id]
        if kind is not None:
            sql, params = sql + " AND kind = ?", [*params, kind]
        rows = self.readable(self.query(sql + " ORDER BY seq DESC LIMIT ?", [*params, limit]), "refused_facts")
        return [RefusedFact(id=r["id"], user_id=r["user_id"], episode_id=r["episode_id"], kind=r["kind"],
                            subject=r["subject"], predicate=r["predicate"], object=r["object"], rule=r["rule"],
                            origin=r["origin"], created_at=from_epoch(r["created_at"]))  # type: ignore[arg-type]
                for r in rows]

    def drop_refused_of(self, conn: object, user_id: str, episode_ids: Sequence[str]) -> None:
        """Inside an erasure's transaction (``conn``): the refusals of the erased episodes go with them."""
        for chunk in chunks(list(episode_ids), 400):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM refused_facts WHERE user_id = ? AND episode_id IN ({marks})",  # type: ignore[attr-defined]
                         [user_id, *chunk])
