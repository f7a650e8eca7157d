"""Episode queries (a mixin of :class:`~.sqlite.SQLiteStore`), every one scoped by ``user_id``."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from .._time import to_epoch
from ..types import Episode
from .connection import Connection
from .rows import EpisodeRow, UserFilter, chunks, dumps, row_to_episode, row_to_episode_row
from .vectors import Vector

__all__ = ["EpisodeQueries"]

_VECTOR_DTYPE = np.dtype("<f4")
"""How a kept episode vector is stored: little-endian float32, as Chroma holds it."""
_FLOAT32 = _VECTOR_DTYPE.itemsize

COUNT_REUSE = 32
"""A word's count (:meth:`EpisodeQueries.fts_match_counts`) is counted again once the number
of stored turns has moved by more than 1/32 (3 %) of itself since: it only decides whether a
word is common, which a few per cent of turns more or less rarely changes."""
COUNT_MEMO = 4096
"""At most this many word counts are kept per connection (then all are dropped)."""
COUNT_MEMO_FROM = 1000
"""Only counts of at least this many turns are kept: a rarer word is counted afresh each
time (cheap: its row list is short), so a word just stored is never taken for absent."""

_WITH_KEPT_VECTOR = "e.*, CASE WHEN e.indexed = 1 THEN v.vec END AS kept_vector"
"""An episode row (``e``) with its kept vector as ``kept_vector``: NULL unless indexed with a copy."""
_KEPT_VECTOR_JOIN = " LEFT JOIN episode_vectors v ON v.seq = e.seq"


def _blob(vector: Sequence[float] | Vector) -> bytes:
    return np.asarray(vector, dtype=_VECTOR_DTYPE).tobytes()


def _kept(blob: object) -> Vector | None:
    """A kept vector as a read-only float32 array (it views the bytes); ``None`` when the blob
    is missing or damaged (the index has the vector then)."""
    if isinstance(blob, bytes) and blob and len(blob) % _FLOAT32 == 0:
        return np.frombuffer(blob, dtype=_VECTOR_DTYPE)
    return None


def _varint(data: bytes) -> int | None:
    """The SQLite varint at the start of ``data`` (big-endian, 7 bits a byte while the top bit
    is set, all 8 bits of a ninth byte); ``None`` when ``data`` ends before it does."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return None


class EpisodeQueries(Connection):
    """Insert, read, flag and keyword-search the episodes of a user."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # the connection's (a path, or a Postgres URL and its settings)
        self._match_counts: dict[str, tuple[int, int]] = {}
        """Word counts (:meth:`fts_match_counts`): match -> (turns found, turns stored then)."""

    def insert_episodes(self, episodes: Sequence[Episode]) -> None:
        """Insert episodes in one transaction (all or nothing; joins the caller's transaction)."""
        rows = [
            (
                e.id, e.user_id, e.session_id, e.role, e.content, to_epoch(e.timestamp), to_epoch(e.ingested_at),
                dumps(e.metadata), e.importance, e.access_count, to_epoch(e.last_access), int(e.processed), e.source,
            )
            for e in episodes
        ]
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO episodes (id, user_id, session_id, role, content, ts, ingested_at,"
                " metadata, importance, access_count, last_access, processed, source)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def get_episodes(self, user_id: str, ids: Sequence[str]) -> list[Episode]:
        """Episodes of ``user_id`` among ``ids`` (others' ids are silently absent)."""
        return self.readable(self._rows_by_id(user_id, ids), "episodes", row_to_episode)

    def episode_rows(self, user_id: str, ids: Sequence[str]) -> list[EpisodeRow]:
        """Rows of ``user_id``'s episodes among ``ids`` as ranking reads them (others' ids are
        silently absent; :meth:`episodes_of` converts those a read returns)."""
        return self.readable(self._rows_by_id(user_id, ids), "episodes", row_to_episode_row)

    def episode_rows_and_vectors(self, user_id: str, ids: Sequence[str]) -> tuple[list[EpisodeRow], dict[str, Vector]]:
        """:meth:`episode_rows` and, read in the same statement, the kept vectors of those rows
        :meth:`episode_vectors` would return (indexed, with an undamaged copy)."""
        return self._with_vectors(self._rows_by_id(user_id, ids, with_vectors=True))

    def dated_rows_and_vectors(
        self, user_id: str, windows: Sequence[tuple[datetime, datetime]], limit: int, *,
        session_id: str | None = None,
    ) -> tuple[list[EpisodeRow], dict[str, Vector]] | None:
        """Rows and kept vectors (as :meth:`episode_rows_and_vectors`) of ``user_id``'s episodes
        (of one session with ``session_id``) whose event time falls in one of the half-open
        ``windows``, in event-time order; ``None`` when they are more than ``limit`` (counted
        first, in the ``(user_id, ts)`` index, so a long stretch costs no row reads)."""
        if not windows or limit < 0:
            return [], {}
        spans = " OR ".join("(e.ts >= ? AND e.ts < ?)" for _ in windows)
        params: list[Any] = [user_id, *(t for start, end in windows for t in (to_epoch(start), to_epoch(end)))]
        where = f"e.user_id = ? AND ({spans})"
        if session_id is not None:
            where += " AND e.session_id = ?"
            params.append(session_id)
        (count,) = self.query(f"SELECT count(*) FROM (SELECT 1 FROM episodes e WHERE {where} LIMIT ?)",
                              [*params, limit + 1])[0]
        if count > limit:
            return None
        sql = f"SELECT {_WITH_KEPT_VECTOR} FROM episodes e{_KEPT_VECTOR_JOIN} WHERE {where} ORDER BY e.ts, e.seq"
        return self._with_vectors(self.query(sql, params))

    def _with_vectors(self, rows: Sequence[sqlite3.Row]) -> tuple[list[EpisodeRow], dict[str, Vector]]:
        """``rows`` (read with ``_WITH_KEPT_VECTOR``) as ranking reads them, damaged ones skipped,
        and the kept vectors among them (indexed, with an undamaged copy)."""
        vectors = {row["id"]: vec for row in rows if isinstance(row["id"], str)
                   if (vec := _kept(row["kept_vector"])) is not None}
        return self.readable(rows, "episodes", row_to_episode_row), vectors

    def _rows_by_id(self, user_id: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[sqlite3.Row]:
        """The user's episode rows among ``ids`` (with ``with_vectors``, each with its kept vector
        as ``kept_vector``: NULL unless the row is indexed and has a copy)."""
        columns, join = (_WITH_KEPT_VECTOR, _KEPT_VECTOR_JOIN) if with_vectors else ("e.*", "")
        out: list[sqlite3.Row] = []
        for chunk in chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            out += self.query(f"SELECT {columns} FROM episodes e{join} WHERE +e.user_id = ? AND e.id IN ({marks})",
                              [user_id, *chunk])
        return out

    def episodes_of(self, rows: Sequence[EpisodeRow]) -> list[Episode]:
        """The :class:`Episode` of each of ``rows`` (from :meth:`episode_rows`), damaged ones skipped
        with one warning as every read does."""
        return self.readable([r.row for r in rows], "episodes", row_to_episode)

    def list_episodes(
        self,
        user_id: str,
        *,
        session_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        unprocessed_only: bool = False,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        """Episodes of a user in event-time order, optionally filtered."""
        q = UserFilter("SELECT * FROM episodes", user_id)
        q.where("session_id = ?", session_id, when=session_id is not None)
        q.where("ts >= ?", since, when=since is not None)
        q.where("ts < ?", until, when=until is not None)
        q.where("processed = 0", when=unprocessed_only)
        q.sql += " ORDER BY ts DESC, seq DESC" if newest_first else " ORDER BY ts, seq"
        if limit is not None:
            q.sql += " LIMIT ?"
            q.params.append(int(limit))
        return self.readable(self.query(q.sql, q.params), "episodes", row_to_episode)

    def user_turns_naming(self, user_id: str, word: str, *, before: float, limit: int = 3) -> list[Episode]:
        """The user's own turns (role ``user``) said before ``before`` (epoch seconds) that hold ``word`` (a
        case-insensitive substring: the caller checks word boundaries), oldest first: where a thing a later
        change ends was first named. A scan of the user's turns in time order (the ``(user_id, ts)`` index) that
        stops at ``limit`` matches: no other user's turn is read, unlike a full-text match of a common word."""
        pattern = "%" + word.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = ("SELECT * FROM episodes WHERE user_id = ? AND ts < ? AND role = 'user' AND lower(content) LIKE ?"
               " ESCAPE '\\' ORDER BY ts, seq LIMIT ?")
        return self.readable(self.query(sql, [user_id, before, pattern, limit]), "episodes", row_to_episode)

    def user_turns_before(self, user_id: str, *, before: float, limit: int) -> list[Episode]:
        """The user's own last ``limit`` turns (role ``user``) said before ``before`` (epoch seconds), latest
        first: where the thing a change replaced may have been named (a scan of the ``(user_id, ts)`` index
        backwards; no other user's turn is read)."""
        sql = "SELECT * FROM episodes WHERE user_id = ? AND ts < ? AND role = 'user' ORDER BY ts DESC, seq DESC LIMIT ?"
        return self.readable(self.query(sql, [user_id, before, limit]), "episodes", row_to_episode)

    def count_episodes_after(self, user_id: str, at: float, limit: int) -> int:
        """How many of ``user_id``'s episodes have an event time after ``at`` (epoch seconds),
        counted up to ``limit`` (in the ``(user_id, ts)`` index: no row reads)."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM episodes WHERE user_id = ? AND ts > ? LIMIT ?)"
        return int(self.query(sql, [user_id, at, max(0, limit)])[0][0])

    def neighbours(self, user_id: str, ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """The previous and next turn of each episode in its session (event-time order)."""
        return {i: (row[0], row[1]) for i, row in self._around(user_id, ids, 1).items()}

    def nearby(self, user_id: str, ids: Sequence[str], reach: int) -> dict[str, list[tuple[str, int]]]:
        """The turns up to ``reach`` places before and after each episode in its session (event-time
        order), each with its offset: ``-1`` the turn just before, ``1`` the one just after (the
        reply), ``-2`` / ``2`` the next ones out."""
        return {i: [(n, (1 + k // 2) * (1 if k % 2 else -1)) for k, n in enumerate(row) if n is not None]
                for i, row in self._around(user_id, ids, reach).items()}

    def _around(self, user_id: str, ids: Sequence[str], reach: int) -> dict[str, tuple[str | None, ...]]:
        """Per episode with a session: the ids one before, one after, two before, two after ...
        (``None`` past the session's edge). One statement: each place is a correlated lookup in
        ``episodes_user_session``."""
        if not ids or reach < 1:
            return {}
        side = ("(SELECT n.id FROM episodes n WHERE n.user_id = e.user_id AND n.session_id = e.session_id"
                " AND n.ts {op}= e.ts AND (n.ts {op} e.ts OR n.seq {op} e.seq)"
                " ORDER BY n.ts {order}, n.seq {order} LIMIT 1 OFFSET {skip})")
        cols = ", ".join(side.format(op=op, order=order, skip=d - 1)
                         for d in range(1, reach + 1) for op, order in (("<", "DESC"), (">", "ASC")))
        out: dict[str, tuple[str | None, ...]] = {}
        for chunk in chunks(list(ids), 500):
            sql = (f"SELECT e.id, {cols} FROM episodes e WHERE +e.user_id = ?"
                   f" AND e.id IN ({','.join('?' * len(chunk))}) AND e.session_id IS NOT NULL")
            out.update({row[0]: tuple(row[1:]) for row in self.query(sql, [user_id, *chunk])})
        return out

    def mark_episodes_indexed(
        self, ids: Sequence[str], vectors: Sequence[Sequence[float] | Vector],
        sentence_vectors: Sequence[Sequence[Sequence[float] | Vector] | Vector | None] | None = None,
    ) -> None:
        """Flag episodes as indexed and keep a copy of each one's vector (``vectors[n]`` is that of
        ``ids[n]``, as the index now holds it) and, when given, of its sentences' vectors
        (``sentence_vectors[n]``, ``None`` or empty for none), in one transaction."""
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} ids but {len(vectors)} vectors")
        if sentence_vectors is not None and len(sentence_vectors) != len(ids):
            raise ValueError(f"{len(ids)} ids but {len(sentence_vectors)} sentence vector lists")
        with self.transaction() as conn:
            conn.executemany("UPDATE episodes SET indexed = 1 WHERE id = ?", [(i,) for i in ids])
            conn.executemany("INSERT OR REPLACE INTO episode_vectors (seq, vec)"
                             " SELECT seq, ? FROM episodes WHERE id = ?", [(_blob(v), i) for i, v in zip(ids, vectors)])
            if sentence_vectors is not None:
                conn.executemany("INSERT OR REPLACE INTO episode_sentence_vectors (seq, vecs)"
                                 " SELECT seq, ? FROM episodes WHERE id = ?",
                                 [(_blob(np.concatenate([np.asarray(v, dtype=_VECTOR_DTYPE) for v in sv])), i)
                                  for i, sv in zip(ids, sentence_vectors) if sv is not None and len(sv)])

    def sentence_vectors(self, user_id: str, ids: Sequence[str]) -> dict[str, Vector]:
        """The kept sentence vectors of ``user_id``'s indexed episodes among ``ids``, each turn's
        one after the other in one read-only float32 array (others' ids, rows not indexed, rows
        kept without sentence vectors and damaged blobs are absent)."""
        out: dict[str, Vector] = {}
        for chunk in chunks(list(dict.fromkeys(ids)), 500):
            marks = ",".join("?" * len(chunk))
            for row in self.query("SELECT e.id, s.vecs FROM episodes e JOIN episode_sentence_vectors s ON s.seq = e.seq"
                                  f" WHERE +e.user_id = ? AND e.indexed = 1 AND e.id IN ({marks})", [user_id, *chunk]):
                if (vec := _kept(row[1])) is not None:
                    out[row[0]] = vec
        return out

    def episode_vectors(self, user_id: str, ids: Sequence[str]) -> dict[str, Vector]:
        """The kept vectors of ``user_id``'s indexed episodes among ``ids``, as read-only float32
        arrays (others' ids, rows not indexed and rows indexed without a copy are absent)."""
        out: dict[str, Vector] = {}
        for chunk in chunks(list(dict.fromkeys(ids)), 500):
            marks = ",".join("?" * len(chunk))
            for row in self.query("SELECT e.id, v.vec FROM episodes e JOIN episode_vectors v ON v.seq = e.seq"
                                  f" WHERE +e.user_id = ? AND e.indexed = 1 AND e.id IN ({marks})", [user_id, *chunk]):
                if (vec := _kept(row[1])) is not None:  # else damaged: Chroma has it
                    out[row[0]] = vec
        return out

    def keep_episode_vectors(self, user_id: str, found: Mapping[str, Sequence[float] | Vector]) -> None:
        """Keep copies of vectors read from the index for ``user_id``'s episodes indexed before
        copies were kept (a row not indexed now, or with a copy already, is left alone: the
        indexer writes a newer one)."""
        if not found:
            return
        with self.transaction() as conn:
            conn.executemany("INSERT OR IGNORE INTO episode_vectors (seq, vec) SELECT seq, ? FROM episodes"
                             " WHERE id = ? AND user_id = ? AND indexed = 1",
                             [(_blob(v), i, user_id) for i, v in found.items()])

    def speakers(self, user_id: str) -> frozenset[str]:
        """The roles ``user_id``'s turns were said in ("user", "assistant", or speakers' names).

        One statement that steps from role to role through ``episodes_user_role`` (a seek per
        role, whatever the length of the history: ~15 us for a few roles at 100k turns), so
        it is read fresh on every recall and nothing is kept between calls.
        """
        rows = self.query(
            "WITH RECURSIVE r(role) AS (SELECT min(role) FROM episodes WHERE user_id = ?1"
            " UNION ALL SELECT (SELECT min(role) FROM episodes WHERE user_id = ?1 AND role > r.role)"
            " FROM r WHERE r.role IS NOT NULL) SELECT role FROM r WHERE role IS NOT NULL", (user_id,))
        return frozenset(r[0] for r in rows if isinstance(r[0], str))

    def users_with_unprocessed(self) -> list[str]:
        """User ids that have episodes not yet consolidated."""
        return self.user_ids(unprocessed_only=True)

    def user_ids(self, *, unprocessed_only: bool = False) -> list[str]:
        """User ids with episodes (only those with episodes not yet consolidated), sorted."""
        where = " WHERE processed = 0" if unprocessed_only else ""
        return [r[0] for r in self.query(f"SELECT DISTINCT user_id FROM episodes{where} ORDER BY user_id")]

    def mark_processed(self, user_id: str, ids: Sequence[str]) -> None:
        """Flag episodes as consolidated (inside the caller's transaction if any)."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE episodes SET processed = 1 WHERE user_id = ? AND id = ?", [(user_id, i) for i in ids]
            )

    def touch_episodes(self, user_id: str, ids: Sequence[str], at: float) -> None:
        """Count an access (retrieval) of these episodes."""
        if not ids:
            return
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE episodes SET access_count = access_count + 1, last_access = ?"
                " WHERE user_id = ? AND id = ?",
                [(at, user_id, i) for i in ids],
            )

    def fts_match_counts(self, matches: Sequence[str]) -> tuple[int, list[int]]:
        """How many episodes the store holds, and how many of them each FTS5 ``match`` finds.

        Store-wide, like the statistics FTS5's BM25 weighs words by (its IDF counts every
        user's rows): they choose which words a keyword search leaves out, never which rows it
        returns. Counting a word's rows reads its row list, not the rows (a word in 2,000 of 10k
        turns: ~0.1 ms against ~2 ms of BM25), and a count of ``COUNT_MEMO_FROM`` turns or more
        is reused while the number of stored turns stays within ``1 / COUNT_REUSE`` of what it
        was when counted (at 100k turns, a common word's count costs about a millisecond).
        """
        with self._lock:  # one snapshot, and the memo is the connection's
            total = self._fts_rows()
            memo = self._match_counts
            stale = [m for m in dict.fromkeys(matches)
                     if (hit := memo.get(m)) is None or abs(hit[1] - total) * COUNT_REUSE > total]
            fresh: dict[str, int] = {}
            if stale:
                fresh = dict(zip(stale, self._count_matches(stale)))
                for m in fresh:
                    memo.pop(m, None)
                kept = {m: (n, total) for m, n in fresh.items() if n >= COUNT_MEMO_FROM}
                if len(memo) + len(kept) > COUNT_MEMO:
                    memo.clear()
                memo.update(kept)
            return total, [fresh[m] if m in fresh else memo[m][0] for m in matches]

    def _count_matches(self, matches: Sequence[str]) -> list[int]:
        """How many episodes (of every user) each FTS5 ``match`` finds, in one statement."""
        row = self.query("SELECT " + ", ".join("(SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?)"
                                               for _ in matches), list(matches))[0]
        return [int(n) for n in row]

    def _fts_rows(self) -> int:
        """The number of rows FTS5 has indexed, the ``N`` of its BM25: read from its averages
        record (the ``id = 1`` row of ``episodes_fts_data``, a varint first), O(1) where
        ``count(*)`` walks an index (1.6 ms at 100k turns). It holds committed rows (FTS5
        writes it at commit); without one, or unreadable, the rows are counted."""
        found = self.query("SELECT block FROM episodes_fts_data WHERE id = 1")
        rows = _varint(found[0][0]) if found and isinstance(found[0][0], bytes) else None
        return rows if rows is not None else int(self.query("SELECT count(*) FROM episodes")[0][0])

    def fts_episodes(
        self, user_id: str, match: str, limit: int, session_id: str | None = None, *, window: int = 0,
        most: int | None = None,
    ) -> list[tuple[str, float]]:
        """BM25 over a user's episodes: ``(episode_id, score)``, higher is better.

        ``window`` > 0 bounds the cost of a query whose words are everywhere: FTS5 computes
        BM25 for every matching row, so when more than ``window`` turns (of any user) match,
        only the user's newest ``window`` turns (by event time) and the turns stored after
        the first of those are scored. Rarer words are searched in the whole history.
        ``most``, when the caller knows it, bounds how many turns (of any user) ``match``
        finds: a bound within ``window`` skips counting them.
        """
        # the user filter reads (seq, user_id) from a small covering index, not from the rows
        # (a tenth of their pages): a query whose words match 10k turns checks 10k of them
        sql = (
            "SELECT e.seq, -bm25(episodes_fts) AS s FROM episodes_fts JOIN episodes e"
            f"{'' if session_id is not None else ' INDEXED BY episodes_seq_user'}"
            " ON e.seq = episodes_fts.rowid WHERE episodes_fts MATCH ? AND e.user_id = ?"
        )
        params: list[Any] = [match, user_id]
        if session_id is not None:
            sql += " AND e.session_id = ?"
            params.append(session_id)
        if window > 0 and (most is None or most > window) and self.query(
                "SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?", [match])[0][0] > window:
            first, n = self.query(
                "SELECT min(seq), count(*) FROM (SELECT seq FROM episodes WHERE user_id = ?"
                " ORDER BY ts DESC LIMIT ?)", [user_id, window]
            )[0]
            if n >= window:  # a longer history: FTS5 only visits the rows from there on
                sql += " AND episodes_fts.rowid >= ?"
                params.append(first)
        sql += " ORDER BY s DESC LIMIT ?"
        params.append(limit)
        with self._lock:  # one snapshot: no row can go between the two statements
            hits = self.query(sql, params)
            ids: dict[int, str] = {r[0]: r[1] for r in self.query(
                f"SELECT seq, id FROM episodes WHERE seq IN ({','.join('?' * len(hits))})", [r[0] for r in hits])
            } if hits else {}
        return [(ids[r[0]], float(r[1])) for r in hits]
