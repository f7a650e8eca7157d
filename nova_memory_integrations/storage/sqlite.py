"""SQLite system of record: episodes, bi-temporal facts, rules, history, dead letters, store items.

:class:`SQLiteStore` is the query mixins over one shared :class:`~.connection.Connection`
(episodes, facts, rules, records, LangGraph store items, hidden memories, table rows) plus deletion of
memories, which spans the memory tables (items are erased by their own mixin).
Every query that touches user data takes ``user_id``: tenancy is enforced here, where no
caller can forget it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .blocks import BlockQueries
from .compaction import CompactionQueries
from .episodes import EpisodeQueries
from .fact_queries import FactQueries
from .hidden import HiddenQueries
from .items import ItemQueries
from .migrations import STORAGE
from .records import RecordQueries
from .refusals import RefusalQueries
from .rows import DAMAGE, chunks, dumps, row_to_episode, row_to_fact, row_to_rule
from .rules import RuleQueries
from .tables import TableRows

__all__ = ["SQLiteStore", "row_to_episode", "row_to_fact", "row_to_rule"]


class SQLiteStore(EpisodeQueries, FactQueries, RuleQueries, RecordQueries, ItemQueries, HiddenQueries,
                  CompactionQueries, BlockQueries, RefusalQueries, TableRows):
    """The system of record. Thread-safe; every method is scoped by ``user_id``."""

    def __init__(self, path: Path | str, **options: Any) -> None:
        super().__init__(path, **options)  # the connection's options (busy_timeout_ms ...)
        try:
            STORAGE.apply(self)  # the tables, then every later step this database has not recorded
        except BaseException:
            self.close()
            raise

    # -- deletion -----------------------------------------------------------------------
    def delete_user(self, user_id: str) -> dict[str, int]:
        """Remove every row of a user from every table; returns counts per table."""
        counts: dict[str, int] = {}
        with self.user_transaction(user_id) as conn:
            for table in ("episodes", "facts", "fact_events", "rules", "dead_letters", "entities", "entity_aliases",
                          "conflicts", "pinned_blocks", "refused_facts"):
                cur = conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                counts[table] = cur.rowcount
            self._after_delete_user(conn)
        self.scrub()
        return counts

    def _after_delete_user(self, conn: Any) -> None:
        """Inside :meth:`delete_user`'s transaction, once the rows are gone.

        ``episodes_seq_user`` orders every user's turns by seq, so theirs sit on shared pages,
        and a delete there can leave the bytes of the user id behind (found by
        test_forget_bytes); rebuilt, its old pages are freed, which secure_delete zeroes
        (~0.1 s per 100k turns).
        """
        conn.execute("REINDEX episodes_seq_user")

    def delete_ids(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Delete episodes, fact versions (whole lineages) and rules of a user by id."""
        removed: dict[str, list[str]] = {"episodes": [], "facts": [], "rules": []}
        with self.user_transaction(user_id) as conn:
            for chunk in chunks(list(ids), 500):
                marks = ",".join("?" * len(chunk))
                ep = [r[0] for r in conn.execute(
                    f"SELECT id FROM episodes WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])]
                conn.execute(f"DELETE FROM episodes WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])
                lineages = [r[0] for r in conn.execute(
                    f"SELECT DISTINCT lineage_id FROM facts WHERE user_id = ? AND (id IN ({marks})"
                    f" OR lineage_id IN ({marks}))", [user_id, *chunk, *chunk])]
                fa: list[str] = []
                for lin in lineages:
                    fa += [r[0] for r in conn.execute(
                        "SELECT id FROM facts WHERE user_id = ? AND lineage_id = ?", (user_id, lin))]
                    conn.execute("DELETE FROM facts WHERE user_id = ? AND lineage_id = ?", (user_id, lin))
                ru = [r[0] for r in conn.execute(
                    f"SELECT id FROM rules WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])]
                conn.execute(f"DELETE FROM rules WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])
                removed["episodes"] += ep
                removed["facts"] += fa
                removed["rules"] += ru
            self._delete_history(conn, user_id, removed["facts"], removed["episodes"])
            self.drop_refused_of(conn, user_id, removed["episodes"])
        self.scrub()
        return removed

    @staticmethod
    def _delete_history(conn: sqlite3.Connection, user_id: str, fact_ids: list[str], episode_ids: list[str]) -> None:
        """Drop the history of deleted facts (events, conflicts, orphaned entities) and
        deleted episodes from dead letters."""
        for chunk in chunks(fact_ids, 400):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM fact_events WHERE user_id = ? AND (fact_id IN ({marks})"
                         f" OR replaced_fact_id IN ({marks}))", [user_id, *chunk, *chunk])
            conn.execute(f"DELETE FROM conflicts WHERE user_id = ? AND (existing_fact_id IN ({marks})"
                         f" OR new_fact_id IN ({marks}))", [user_id, *chunk, *chunk])
        if fact_ids:  # entities no remaining fact of the user mentions
            conn.execute("DELETE FROM entities WHERE user_id = ? AND norm NOT IN (SELECT subject FROM facts"
                         " WHERE user_id = ?) AND norm NOT IN (SELECT object_norm FROM facts WHERE user_id = ?)",
                         (user_id, user_id, user_id))
            conn.execute("DELETE FROM entity_aliases WHERE user_id = ? AND entity_id NOT IN"
                         " (SELECT id FROM entities WHERE user_id = ?)", (user_id, user_id))
        gone = set(episode_ids)
        if not gone:
            return
        for letter_id, raw in conn.execute("SELECT id, episode_ids FROM dead_letters WHERE user_id = ?",
                                           (user_id,)).fetchall():
            try:
                listed = list(json.loads(raw))
            except DAMAGE:  # a damaged letter is left as stored (reads skip it)
                continue
            keep = [i for i in listed if i not in gone]
            if not keep:
                conn.execute("DELETE FROM dead_letters WHERE id = ?", (letter_id,))
            elif len(keep) != len(listed):
                conn.execute("UPDATE dead_letters SET episode_ids = ? WHERE id = ?", (dumps(keep), letter_id))
