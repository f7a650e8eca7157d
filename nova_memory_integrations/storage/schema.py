"""SQLite schema of the system of record, as the storage migration ``create_tables`` creates it.

Frozen: a store that has applied ``create_tables`` never reads this again, so a change to the
schema is a new named step in :mod:`.migrations` (``tests/unit/test_migrations.py`` pins this text).
"""

from __future__ import annotations


def _beside_episodes(table: str, column: str, name: str) -> str:
    """The DDL of a table holding one blob per indexed episode (by ``seq``) that lives and dies
    with the row's index entry: triggers delete it with the row, and when the row's ``indexed``
    flag falls back to 0 (content rewritten, store re-embedded)."""
    return f"""CREATE TABLE IF NOT EXISTS {table} (
    seq INTEGER PRIMARY KEY,
    {column} BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS episodes_ad_{name} AFTER DELETE ON episodes BEGIN
    DELETE FROM {table} WHERE seq = old.seq;
END;
CREATE TRIGGER IF NOT EXISTS episodes_unindexed_{name} AFTER UPDATE OF indexed ON episodes
WHEN new.indexed = 0 BEGIN
    DELETE FROM {table} WHERE seq = new.seq;
END;
"""


SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS episodes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    session_id TEXT,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    ts REAL NOT NULL,
    ingested_at REAL NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    importance REAL NOT NULL DEFAULT 0.5,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_access REAL,
    processed INTEGER NOT NULL DEFAULT 0,
    indexed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS episodes_user_ts ON episodes (user_id, ts);
CREATE INDEX IF NOT EXISTS episodes_seq_user ON episodes (seq, user_id);
CREATE INDEX IF NOT EXISTS episodes_user_session ON episodes (user_id, session_id, ts);
CREATE INDEX IF NOT EXISTS episodes_user_role ON episodes (user_id, role);
CREATE INDEX IF NOT EXISTS episodes_unprocessed ON episodes (user_id, ts) WHERE processed = 0;
CREATE INDEX IF NOT EXISTS episodes_unindexed ON episodes (seq) WHERE indexed = 0;

CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5 (
    content, content='episodes', content_rowid='seq', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS episodes_ai AFTER INSERT ON episodes BEGIN
    INSERT INTO episodes_fts (rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER IF NOT EXISTS episodes_ad AFTER DELETE ON episodes BEGIN
    INSERT INTO episodes_fts (episodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER IF NOT EXISTS episodes_au AFTER UPDATE OF content ON episodes BEGIN
    INSERT INTO episodes_fts (episodes_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO episodes_fts (rowid, content) VALUES (new.seq, new.content);
END;

-- A copy of each indexed episode's vector (float32, little-endian), written with ``indexed = 1``
-- in the same transaction as the flag: recall reads the few dozen vectors a context() compares
-- (keyword-only hits, neighbours of matches) here, beside the row, instead of from Chroma (~30 us
-- a vector there). It lives and dies with the row's index entry: gone when the row is deleted
-- or its flag falls back to 0 (content rewritten, store re-embedded). Rows indexed by earlier
-- versions have none until a read finds their vector in Chroma and keeps it.
""" + _beside_episodes("episode_vectors", "vec", "vector") + """
-- The vectors of an indexed episode's sentences (as compression splits them, speaker prefix
-- aside; float32 little-endian, one after the other), kept for turns of two sentences or more:
-- context() cuts a long turn to its sentences closest to the query. Written with the turn's
-- vector and gone with it; rows indexed by earlier versions have none (their sentences are
-- then chosen by the query words they share).
""" + _beside_episodes("episode_sentence_vectors", "vecs", "sentence_vectors") + """
CREATE TABLE IF NOT EXISTS facts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    lineage_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    object_norm TEXT NOT NULL,
    text TEXT NOT NULL,
    confidence REAL NOT NULL,
    valid_from REAL NOT NULL,
    valid_to REAL,
    ingested_at REAL NOT NULL,
    expired_at REAL,
    provenance TEXT NOT NULL DEFAULT '[]',
    occurrence_count INTEGER NOT NULL DEFAULT 1,
    last_reinforced REAL NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    indexed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS facts_current ON facts (user_id, subject, predicate) WHERE expired_at IS NULL;
CREATE INDEX IF NOT EXISTS facts_lineage ON facts (lineage_id);
CREATE INDEX IF NOT EXISTS facts_user ON facts (user_id, ingested_at);
CREATE INDEX IF NOT EXISTS facts_unindexed ON facts (seq) WHERE indexed = 0;

CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5 (
    text, content='facts', content_rowid='seq', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts (facts_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;

CREATE TABLE IF NOT EXISTS fact_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    op TEXT NOT NULL,
    fact_id TEXT,
    replaced_fact_id TEXT,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    reason TEXT NOT NULL,
    episode_ids TEXT NOT NULL DEFAULT '[]',
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS fact_events_user ON fact_events (user_id, at);

CREATE TABLE IF NOT EXISTS rules (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    condition TEXT NOT NULL,
    action TEXT NOT NULL,
    confidence REAL NOT NULL,
    created_at REAL NOT NULL,
    usage_count INTEGER NOT NULL DEFAULT 0,
    last_used REAL,
    metadata TEXT NOT NULL DEFAULT '{}',
    indexed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS rules_user ON rules (user_id);

CREATE TABLE IF NOT EXISTS dead_letters (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    episode_ids TEXT NOT NULL,
    error TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_letters_user ON dead_letters (user_id);

-- entity resolution (nova_memory_integrations.entities): one row per canonical entity
CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    norm TEXT NOT NULL,
    key TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (user_id, norm)
);
CREATE INDEX IF NOT EXISTS entities_key ON entities (user_id, key);
CREATE TABLE IF NOT EXISTS entity_aliases (
    user_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    method TEXT NOT NULL,
    score REAL NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (user_id, alias)
);
CREATE INDEX IF NOT EXISTS entity_aliases_entity ON entity_aliases (entity_id);

-- contradictions found while applying facts (nova_memory_integrations.conflicts)
CREATE TABLE IF NOT EXISTS conflicts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    existing_fact_id TEXT,
    existing_object TEXT NOT NULL,
    new_predicate TEXT NOT NULL,
    new_object TEXT NOT NULL,
    new_fact_id TEXT,
    strategy TEXT NOT NULL,
    winner TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    episode_ids TEXT NOT NULL DEFAULT '[]',
    detected_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS conflicts_user ON conflicts (user_id, detected_at);

-- LangGraph store items (nova_memory_integrations.langgraph): JSON documents by (user, scope, key).
-- ``scope`` is the namespace without the user's label, labels joined by '.' (a label never holds
-- one); ``value`` is the document as given; ``index_paths`` the JSON list of field paths embedded
-- (``[]``: not indexed) and ``search_text`` their texts, for BM25; ``vectors`` how many vectors
-- of the item the vector index holds, ``indexed`` whether they are those of this version.
CREATE TABLE IF NOT EXISTS items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    index_paths TEXT NOT NULL DEFAULT '[]',
    search_text TEXT NOT NULL DEFAULT '',
    vectors INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    indexed INTEGER NOT NULL DEFAULT 0,
    UNIQUE (user_id, scope, key)
);
CREATE INDEX IF NOT EXISTS items_user_updated ON items (user_id, updated_at);
CREATE INDEX IF NOT EXISTS items_unindexed ON items (seq) WHERE indexed = 0;

CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5 (
    search_text, content='items', content_rowid='seq', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER IF NOT EXISTS items_au AFTER UPDATE OF search_text ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
    INSERT INTO items_fts (rowid, search_text) VALUES (new.seq, new.search_text);
END;
"""


# -- added by later named steps (storage/migrations.py); SCHEMA above stays frozen ---------------

SOURCE_AND_IMPORTANCE: tuple[tuple[str, str, str], ...] = (
    ("episodes", "source", "TEXT NOT NULL DEFAULT 'inferred'"),
    ("facts", "source", "TEXT NOT NULL DEFAULT 'inferred'"),
    ("facts", "importance", "REAL NOT NULL DEFAULT 0.5"),
)
"""The columns of the ``source_and_importance`` step: (table, column, SQLite definition)."""

FACTS_IMPORTANT_INDEX = (
    "CREATE INDEX IF NOT EXISTS facts_important ON facts (user_id, importance) WHERE expired_at IS NULL")
"""The index the ``source_and_importance`` step adds (it serves ``FactQueries.important_facts``)."""

PINNED_BLOCKS = """CREATE TABLE IF NOT EXISTS pinned_blocks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    size_limit INTEGER NOT NULL,
    author TEXT NOT NULL,
    valid_from REAL NOT NULL,
    valid_to REAL,
    ingested_at REAL NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX IF NOT EXISTS pinned_blocks_current ON pinned_blocks (user_id, name) WHERE valid_to IS NULL;
CREATE INDEX IF NOT EXISTS pinned_blocks_user ON pinned_blocks (user_id, name, seq);
"""
"""The ``create_pinned_blocks`` step: pinned blocks, each version kept, one current per user and name."""

REFUSED_FACTS = """CREATE TABLE IF NOT EXISTS refused_facts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    episode_id TEXT,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object TEXT NOT NULL,
    rule TEXT NOT NULL,
    origin TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS refused_facts_user ON refused_facts (user_id, seq);
"""
"""The ``create_refused_facts`` step: facts a declared schema refused (:mod:`~.refusals`), one row each."""
