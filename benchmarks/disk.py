"""Disk use per episode of a closed store, split between SQLite and Chroma. Prints one JSON line.

Two scenarios (``--scenarios``): ``small`` is many small users (default 100 users x 50
episodes), ``large`` a few heavy ones (default 10 users x 5,000 episodes). Each fills a
fresh store in a temp dir with generated chat turns (``_common.generate_turns``; one
session per 20 turns), waits for the indexer, consolidates (the deterministic extractor:
facts get vectors too), closes the store and sums the size of every file under the data
directory:

- ``sqlite``: ``nova.sqlite3`` and its ``-wal`` / ``-shm`` files (the system of record);
- ``chroma``: everything under ``chroma/``, split into ``chroma_sqlite`` (``chroma.sqlite3``:
  Chroma's catalogue, its write-ahead queue, its metadata segment) and ``chroma_segments``
  (the HNSW index files, one directory per collection with vectors);
- ``chroma_tables``: the largest tables / indexes of ``chroma.sqlite3`` (SQLite's ``dbstat``),
  to see what dominates.

Vectors come from a deterministic 384-dimension hash embedder by default (the size of
MiniLM's vectors; disk use does not depend on what the vectors mean, and embedding 50,000
turns with the real model would take most of the run); ``--embedder minilm`` uses the
packaged model instead.

Usage:
    .venv/bin/python benchmarks/disk.py [--scenarios small,large] [--small 100x50] [--large 10x5000]
        [--embedder hash|minilm] [--no-consolidate]

Progress goes to stderr; stdout's last line is the JSON result (bytes per episode per
scenario: ``total``, ``sqlite``, ``chroma``, ``chroma_sqlite``, ``chroma_segments``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_turns, log, set_offline_env

set_offline_env()

from nova_memory_integrations import NovaConfig, NovaStore  # noqa: E402

DIM = 384
BATCH = 100


class HashEmbeddings:
    """Unit vectors of ``DIM`` floats drawn from a seed derived from the text (same text, same vector)."""

    embedding_space = "benchmarks.disk.HashEmbeddings:384"

    def _one(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _tables(db: Path, top: int = 8) -> dict[str, int]:
    """Bytes per table / index of an SQLite file, the largest ``top`` (read-only; the store is closed)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
            free = con.execute("PRAGMA freelist_count").fetchone()[0] * con.execute("PRAGMA page_size").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as exc:  # no dbstat in this SQLite build
        return {"error": str(exc)}  # type: ignore[dict-item]
    out = {str(name): int(size) for name, size in rows[:top]}
    out["(free pages)"] = int(free)
    return out


def run(users: int, per_user: int, embedder: str, consolidate: bool) -> dict[str, Any]:
    total = users * per_user
    turns = generate_turns(total, seed=7)
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory(prefix="nova-disk-") as tmp:
        root = Path(tmp)
        cfg = NovaConfig.from_dict({"retrieval": {"reranker": "fallback"}, "consolidation": {"mode": "manual"}})
        emb = HashEmbeddings() if embedder == "hash" else None
        store = NovaStore(root, config=cfg, embeddings=emb)
        start = time.perf_counter()
        rows = []
        for i, (role, text) in enumerate(turns):
            u, n = i % users, i // users  # users interleaved, as they would be in a live service
            rows.append({"user_id": f"user{u}", "role": role, "content": text, "session_id": f"u{u}-s{n // 20}",
                         "timestamp": t0 + timedelta(seconds=i)})
        for i in range(0, total, BATCH):
            store.add_turns(rows[i : i + BATCH], consolidation="manual")
        store.flush()
        log(f"{users}x{per_user}: {total} turns stored and indexed in {time.perf_counter() - start:.1f}s")
        facts = 0
        if consolidate:
            start = time.perf_counter()
            store.consolidate()
            store.flush()
            facts = int(store.stats()["facts"])
            log(f"{users}x{per_user}: consolidated into {facts} facts in {time.perf_counter() - start:.1f}s")
        store.close()
        chroma = root / cfg.storage.chroma_dirname
        sqlite_bytes = sum(_size(p) for p in root.iterdir() if p.is_file())
        chroma_bytes = _size(chroma) if chroma.exists() else 0
        chroma_sqlite = _size(chroma / "chroma.sqlite3") if (chroma / "chroma.sqlite3").exists() else 0
        segment_dirs = [p for p in chroma.iterdir() if p.is_dir()] if chroma.exists() else []
        hnsw_files: dict[str, int] = {}
        for d in segment_dirs:
            for f in d.iterdir():
                hnsw_files[f.name] = hnsw_files.get(f.name, 0) + f.stat().st_size
        all_bytes = _size(root)
        return {
            "users": users, "episodes_per_user": per_user, "episodes": total, "facts": facts,
            "bytes": {"total": all_bytes, "sqlite": sqlite_bytes, "chroma": chroma_bytes,
                      "chroma_sqlite": chroma_sqlite, "chroma_segments": chroma_bytes - chroma_sqlite},
            "per_episode": {"total": round(all_bytes / total), "sqlite": round(sqlite_bytes / total),
                            "chroma": round(chroma_bytes / total), "chroma_sqlite": round(chroma_sqlite / total),
                            "chroma_segments": round((chroma_bytes - chroma_sqlite) / total)},
            "segment_dirs": len(segment_dirs), "hnsw_files": hnsw_files,
            "chroma_tables": _tables(chroma / "chroma.sqlite3") if chroma_sqlite else {},
            "sqlite_tables": _tables(root / cfg.storage.sqlite_filename),
        }


def _shape(text: str) -> tuple[int, int]:
    users, _, per_user = text.lower().partition("x")
    return int(users), int(per_user)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", default="small,large", help="comma-separated: small, large")
    ap.add_argument("--small", default="100x50", help="USERSxEPISODES_PER_USER")
    ap.add_argument("--large", default="10x5000", help="USERSxEPISODES_PER_USER")
    ap.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    ap.add_argument("--no-consolidate", action="store_true", help="episodes only (no facts)")
    args = ap.parse_args()
    result: dict[str, Any] = {"benchmark": "disk", "embedder": args.embedder, "cpus": os.cpu_count()}
    for name in [s.strip() for s in args.scenarios.split(",") if s.strip()]:
        users, per_user = _shape(getattr(args, name))
        result[name] = run(users, per_user, args.embedder, not args.no_consolidate)
        log(f"{name}: {result[name]['per_episode']}")
    emit(result)


if __name__ == "__main__":
    main()
