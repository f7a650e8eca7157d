"""Postgres as the system of record: the named storage methods of :class:`~.sqlite.SQLiteStore`
over a psycopg pool (:class:`~.pg_connection.PgConnection`).

:class:`PostgresStore` *is* a :class:`~.sqlite.SQLiteStore` (the class that holds the named,
user-scoped methods; every service types its ``db`` so), on another connection: each method
runs its statement as written, in Postgres' spelling (:func:`~.dialect.to_postgres`), and the
storage migrations apply their Postgres forms (:mod:`.pg_schema`) under an advisory lock. The
methods overridden here are those with no Postgres spelling of the same statement:

- keyword search: FTS5 ``MATCH`` becomes ``to_tsvector('english', ...) @@ query`` over the GIN
  expression indexes, and the rows found are ranked by FTS5's own BM25 (:mod:`.bm25`: the same
  IDF over every user's rows, the same length normalisation, words counted by spaces), so a
  keyword hit weighs alike on either database (with ``ts_rank`` the LoCoMo figures fell 0.02);
- the catalog (``sqlite_master``, ``PRAGMA table_info``) becomes ``information_schema``;
- what SQLite does to its files after an erase (FTS ``optimize``, ``REINDEX``, WAL truncation)
  has no counterpart: Postgres reuses a deleted row's space at its next vacuum.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .bm25 import bm25, idf
from .episodes import COUNT_MEMO, COUNT_REUSE
from .pg_connection import PgConnection, PgSettings, lock_key
from .pg_schema import FTS_CONFIG
from .sqlite import SQLiteStore

__all__ = ["PostgresStore"]

_PHRASE = re.compile(r'"((?:[^"]|"")*)"')
_LEXEME = re.compile(r"'((?:[^']|'')*)'(?::(\S+))?")
"""One lexeme of a ``tsvector``'s text (``'oslo':3,9``): the lexeme, and its positions."""


def _words(column: str) -> str:
    """SQL for the number of words of ``column``: its spaces, plus one (BM25's row length; FTS5
    counts tokens, which for text of words and spaces is the same)."""
    return f"(length({column}) - length(replace({column}, ' ', '')) + 1)"


def _frequencies(tsvector: str) -> dict[str, int]:
    """Lexeme -> how often it occurs, from a ``tsvector``'s text."""
    return {m.group(1).replace("''", "'"): len(m.group(2).split(",")) if m.group(2) else 1
            for m in _LEXEME.finditer(tsvector)}


def _phrases(match: str) -> list[str]:
    """The quoted phrases of an FTS5 ``match`` as :mod:`~..retrieval.lexical` writes it
    (``"a" OR "b"``), unquoted."""
    return [p.replace('""', '"') for p in _PHRASE.findall(match)]


def _tsquery(phrases: Sequence[str]) -> str:
    """SQL for a tsquery matching any of ``phrases`` (each one of its parameters)."""
    return "(" + " || ".join(f"phraseto_tsquery('{FTS_CONFIG}', ?)" for _ in phrases) + ")"


def _query_table(phrases: Sequence[str]) -> str:
    """A one-row table ``t`` whose ``q`` is :func:`_tsquery` (built once per statement)."""
    return f"(SELECT {_tsquery(phrases)} AS q) t"


class PostgresStore(SQLiteStore, PgConnection):
    """The system of record on Postgres. Thread-safe, and safe for any number of stores in any
    number of processes on one database; every method is scoped by ``user_id``.

    Args:
        url: a libpq connection string (``postgresql://user:password@host/db``).
        busy_timeout_ms: how long a statement waits for a row or table lock.
        settings: pool size, connect and statement timeouts.

    Raises:
        DatabaseUnavailableError: the server cannot be reached within the connect timeout.
        MissingExtraError: psycopg is not installed (the ``postgres`` extra).
    """

    def __init__(self, url: str, *, busy_timeout_ms: int = 10_000, settings: PgSettings | None = None) -> None:
        super().__init__(url, busy_timeout_ms=busy_timeout_ms, settings=settings)
        self._mean_words = (0.0, 0)
        """The episodes' mean length in words, and the number of rows when it was computed."""
        self._lexeme_memo: dict[str, list[str]] = {}
        """Phrase -> its lexemes (:meth:`_lexemes`)."""

    def _after_delete_user(self, conn: Any) -> None:
        """Nothing to rebuild: no index of Postgres is shared page by page the way SQLite's are."""

    # -- keyword search -------------------------------------------------------------------------
    def _count_matches(self, matches: Sequence[str], table: str = "episodes", column: str = "content") -> list[int]:
        """How many rows (of every user) each FTS5 ``match`` finds: one statement for all of them
        (a scalar subquery each), not a round trip per word."""
        parts, params = [], []
        for match in matches:
            phrases = _phrases(match)
            if not phrases:
                parts.append("0")
                continue
            parts.append(f"(SELECT count(*) FROM {table} WHERE to_tsvector('{FTS_CONFIG}', {column}) @@ "
                         f"{_tsquery(phrases)})")
            params += phrases
        if not parts:
            return []
        return [int(n) for n in self.query("SELECT " + ", ".join(parts), params)[0]]

    def _lexemes(self, phrases: Sequence[str]) -> list[list[str]]:
        """Each phrase's lexemes (``to_tsvector``'s stems, stopwords gone), from the memo: a phrase's
        lexemes depend on its text and :data:`FTS_CONFIG` only, so a word is sent once per store."""
        memo = self._lexeme_memo
        missing = [p for p in dict.fromkeys(phrases) if p not in memo]
        if missing:
            found = [list(r[0] or ()) for r in self.query(
                f"SELECT array(SELECT lexeme FROM unnest(to_tsvector('{FTS_CONFIG}', w))) FROM unnest(?::text[])"
                " WITH ORDINALITY AS u(w, n) ORDER BY n", [missing])]
            with self._lock:
                if len(memo) + len(missing) > COUNT_MEMO:
                    memo.clear()
                memo.update(zip(missing, found))
            return [memo[p] if p in memo else found[missing.index(p)] for p in phrases]
        return [memo[p] for p in phrases]

    def _corpus(self, table: str, column: str, phrases: Sequence[str]) -> tuple[int, float, list[int]]:
        """BM25's statistics over every user's rows of ``table``, as FTS5 keeps them: the rows, their
        mean length in words, and how many hold each phrase. The episodes' counts and mean length
        are reused while the number of rows moves less than ``1 / COUNT_REUSE`` (as
        :meth:`fts_match_counts` reuses counts), so a query does not walk the table."""
        quoted = ['"' + p.replace('"', '""') + '"' for p in phrases]
        if table != "episodes":
            rows, mean = self.query(f"SELECT count(*), coalesce(avg({_words(column)}), 0) FROM {table}")[0]
            return int(rows), float(mean), self._count_matches(quoted, table, column)
        total, counts = self.fts_match_counts(quoted)
        with self._lock:
            mean, at = self._mean_words
            if abs(at - total) * COUNT_REUSE > total or at == 0:
                mean = float(self.query(f"SELECT coalesce(avg({_words(column)}), 0) FROM episodes")[0][0])
                self._mean_words = (mean, total)
        return total, mean, counts

    def _fts_rows(self) -> int:
        return int(self.query("SELECT count(*) FROM episodes")[0][0])

    def _ranked(self, table: str, column: str, user_id: str, match: str, limit: int, where: str = "",
                params: Sequence[Any] = (), window: int = 0) -> list[tuple[str, float]]:
        """``(id, BM25)`` of the user's rows of ``table`` whose ``column`` matches the FTS5 ``match``
        (and ``where``, on alias ``r``, with ``params``), best first, newest first among equals.
        With ``window`` > 0 (episodes), as on SQLite: when more than ``window`` rows of any user
        match, only the rows from the user's ``window`` newest turns on are scored (one subquery of
        the same statement). What decides it is the sum of the phrases' counts, which BM25 needs
        anyway (SQLite counts the rows of the whole match: at most that sum), so no extra count.

        Postgres finds the rows (the GIN index) and hands back each one's lexemes with their
        positions (its ``tsvector`` as text) and length in words; :func:`.bm25.bm25` ranks them
        with :meth:`_corpus`'s statistics. A phrase's frequency in a row is that of its rarest lexeme.
        """
        phrases = _phrases(match)
        if not phrases:
            return []
        corpus = self._corpus(table, column, phrases) if window > 0 else None
        if corpus is not None and sum(corpus[2]) > window:  # common words: the user's newest turns only
            where += (" AND r.seq >= (SELECT min(w.seq) FROM (SELECT seq FROM episodes WHERE user_id = ?"
                      " ORDER BY ts DESC LIMIT ?) w)")
            params = [*params, user_id, window]
        vector = f"to_tsvector('{FTS_CONFIG}', r.{column})"
        sql = (f"SELECT r.id, r.seq, {vector}::text, {_words('r.' + column)} FROM {table} r, {_query_table(phrases)}"
               f" WHERE r.user_id = ? AND {vector} @@ t.q{where}")
        found = self.query(sql, [*phrases, user_id, *params])
        if not found:
            return []
        rows, mean, counts = corpus or self._corpus(table, column, phrases)
        weights = [idf(rows, n) for n in counts]
        lexemes = self._lexemes(phrases)
        scored = []
        for rid, seq, text, length in found:
            freq = _frequencies(text)
            counts_here = [min((freq.get(x, 0) for x in lex), default=0) for lex in lexemes]
            scored.append((bm25(counts_here, float(length), mean, weights), int(seq), str(rid)))
        scored.sort(key=lambda h: (h[0], h[1]), reverse=True)
        return [(rid, score) for score, _, rid in scored[:limit]]

    def fts_episodes(
        self, user_id: str, match: str, limit: int, session_id: str | None = None, *, window: int = 0,
        most: int | None = None,
    ) -> list[tuple[str, float]]:
        """Full-text search over a user's episodes: ``(episode_id, score)``, higher is better; ``window``
        as on SQLite (:meth:`_ranked`). (``most`` spares SQLite a count Postgres makes for BM25 anyway.)"""
        if session_id is None:
            return self._ranked("episodes", "content", user_id, match, limit, window=window)
        return self._ranked("episodes", "content", user_id, match, limit, " AND r.session_id = ?", [session_id],
                            window=window)

    def fts_facts(self, user_id: str, match: str, limit: int) -> list[tuple[str, float]]:
        """Full-text search over a user's current-belief facts: ``(fact_id, score)``."""
        return self._ranked("facts", "text", user_id, match, limit, " AND r.expired_at IS NULL")

    def fts_items(self, user_id: str, match: str, scope: str, limit: int) -> list[tuple[str, float]]:
        """Full-text search over the indexed text of the user's items in ``scope`` and below."""
        from .items import _within

        where, params = _within(scope, "r.scope")
        return self._ranked("items", "search_text", user_id, match, limit, where, params)

    def speakers(self, user_id: str) -> frozenset[str]:
        """The roles ``user_id``'s turns were said in (a scan of ``episodes_user_role``)."""
        rows = self.query("SELECT DISTINCT role FROM episodes WHERE user_id = ?", [user_id])
        return frozenset(r[0] for r in rows if isinstance(r[0], str))

    def scrub_items(self) -> None:
        """Nothing to merge: see :meth:`~.pg_connection.PgConnection.scrub`."""

    # -- the indexer's claims ---------------------------------------------------------------------
    @contextmanager
    def claim_rows(self, table: str, ids: Sequence[str]) -> Iterator[list[str]]:
        """Claim rows for this process's indexer: a transaction (the block's writes join it) holding
        an advisory lock per row (``pg_try_advisory_xact_lock``: a row another process holds is
        skipped, not waited for), yielding the claimed ids that still need the indexer (absent,
        not indexed, or an expired fact). Locks, not ``FOR UPDATE SKIP LOCKED``: a row lock would
        hold up the updates reads make (access counts) for the whole embedding. Read after the
        locks are held, a row another process indexed meanwhile shows as indexed, so each row is
        embedded and written once; a process that dies mid-batch leaves its rows unlocked and
        unindexed for the others' sweep (:meth:`~..engine.indexer.Indexer.recover`).
        """
        unique = list(dict.fromkeys(ids))
        if table not in ("episodes", "facts", "rules"):
            raise ValueError(table)
        with self.transaction() as tx:
            keys = [lock_key("index", f"{table}:{i}") for i in unique]
            got = [str(r[0]) for r in tx.execute(
                "SELECT t.id FROM unnest(?::text[], ?::bigint[]) AS t(id, k) WHERE pg_try_advisory_xact_lock(t.k)",
                (unique, keys)).fetchall()]
            needs = "indexed = 0" + (" OR expired_at IS NOT NULL" if table == "facts" else "")
            present = {str(r[0]): bool(r[1]) for r in tx.execute(
                f"SELECT id, ({needs}) FROM {table} WHERE id = ANY(?)", (got,)).fetchall()}
            yield [i for i in got if present.get(i, True)]

    def live_ids(self, table: str, ids: Sequence[str]) -> set[str]:
        """As on SQLite, and the rows found stay share-locked to the end of the caller's transaction
        (a claim): an erase in another process waits for the vectors written under it, then drops them."""
        if table not in ("episodes", "facts", "rules"):
            raise ValueError(table)
        live = " AND expired_at IS NULL" if table == "facts" else ""
        return {str(r[0]) for r in self.query(f"SELECT id FROM {table} WHERE id = ANY(?){live} FOR SHARE",
                                              [list(ids)])}

    # -- the catalog and whole rows (export and import) ----------------------------------------------
    def table_columns(self, table: str) -> list[Any]:
        """``PRAGMA table_info``'s shape from ``information_schema``: ``name``, ``type`` (SQLite's
        name of the column's kind: ``INTEGER``, ``REAL``, ``TEXT``, ``BLOB``), ``notnull``,
        ``dflt_value`` (as Postgres spells it: ``'inferred'::text``) and ``pk`` (position in the
        primary key, 0 outside it), so an export reads the same table specs on either database."""
        return self.query(
            "SELECT c.column_name AS name, CASE WHEN c.data_type IN ('bigint', 'integer', 'smallint') THEN 'INTEGER'"
            " WHEN c.data_type IN ('double precision', 'real') THEN 'REAL' WHEN c.data_type = 'bytea' THEN 'BLOB'"
            " ELSE upper(c.data_type) END AS type, (c.is_nullable = 'NO')::int AS notnull,"
            " c.column_default AS dflt_value, coalesce(k.ordinal_position, 0) AS pk"
            " FROM information_schema.columns c LEFT JOIN information_schema.table_constraints t"
            " ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.constraint_type = 'PRIMARY KEY'"
            " LEFT JOIN information_schema.key_column_usage k ON k.constraint_schema = t.constraint_schema"
            " AND k.constraint_name = t.constraint_name AND k.column_name = c.column_name"
            " WHERE c.table_schema = current_schema() AND c.table_name = ? ORDER BY c.ordinal_position", [table])

    def _ordered(self, column: str) -> str:
        """Text compared byte by byte (``COLLATE "C"``, SQLite's ``BINARY``) whatever the database's
        collation, so both databases export a store in the same order."""
        if column == "rowid":
            return "ctid"  # a table without a key: its rows' physical order (as imported)
        return column if column == "seq" else f'{column} COLLATE "C"'

    def users_of(self, tables: Sequence[str]) -> list[str]:
        """As on SQLite, sorted byte by byte (see :meth:`user_rows`)."""
        return sorted(super().users_of(tables), key=lambda u: u.encode("utf-8", "surrogatepass"))

    def table_names(self) -> list[str]:
        """Every table of the store's schema, sorted."""
        return [str(r[0]) for r in self.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            " AND table_type = 'BASE TABLE' ORDER BY table_name")]
