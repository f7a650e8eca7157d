"""storage/bm25 (the Postgres store's keyword ranking) computes what SQLite's FTS5 ``bm25()`` does."""

from __future__ import annotations

import sqlite3

import pytest

from nova_memory_integrations.storage.bm25 import bm25, idf

ROWS = [
    "the cat sat on the mat",
    "a dog and a cat and another cat",
    "dog",
    "birds sing at dawn over the quiet harbour of the old town",
    "the dog chased the dog",
    "nothing here",
]


@pytest.mark.parametrize("words", [["cat"], ["dog"], ["cat", "dog"], ["harbour", "dog", "cat"]])
def test_bm25_matches_fts5_on_the_same_rows(words: list[str]) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5 (content)")
    db.executemany("INSERT INTO t (rowid, content) VALUES (?, ?)", list(enumerate(ROWS, 1)))
    match = " OR ".join(f'"{w}"' for w in words)
    fts5 = dict(db.execute("SELECT rowid, -bm25(t) FROM t WHERE t MATCH ?", [match]).fetchall())
    tokens = [r.split() for r in ROWS]
    mean = sum(map(len, tokens)) / len(tokens)
    weights = [idf(len(ROWS), sum(w in t for t in tokens)) for w in words]
    ours = {n: bm25([t.count(w) for w in words], len(t), mean, weights)
            for n, t in enumerate(tokens, 1) if any(w in t for w in words)}
    assert ours.keys() == fts5.keys() and ours == pytest.approx(fts5, rel=1e-9)
    assert sorted(ours, key=ours.__getitem__) == sorted(fts5, key=fts5.__getitem__)


def test_a_phrase_in_most_rows_keeps_a_tiny_weight_and_counts_are_checked() -> None:
    assert idf(4, 3) == 1e-6 and idf(100, 1) > idf(100, 10) > 0
    assert bm25([0, 0], 5, 5.0, [1.0, 2.0]) == 0.0
    with pytest.raises(ValueError, match="2 phrase counts but 1 weights"):
        bm25([1, 1], 5, 5.0, [1.0])
