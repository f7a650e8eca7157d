"""A child process for ``tests/integration/test_forget_bytes.py``: does any byte of the process heap
reach Chroma's files?

The heap is filled with known strings first (the users' markers), in threads that then exit, so
that memory freed with the text in it is what the next allocations get: that is what happens in
a process that handled the users' text before (tokenizers, SQLite, the indexer's batches). Run with
``GLIBC_TUNABLES`` that keep freed memory in the heap (``heap_env``); with ``--perturb`` glibc
fills every allocation with one byte instead (``heap_env(perturb=True)``), and runs of it in a
file are bytes nobody wrote.

    python tests/heap_probe.py fresh <dir>    # a new store, written in this process
    python tests/heap_probe.py write <dir>    # the same without filling the heap first
    python tests/heap_probe.py reopen <dir>   # a store written by another process, only read here
    python tests/heap_probe.py long <dir>     # stores opened, written and closed; then one more, and
                                              # one of the first reopened

Prints one JSON line: ``{"open": [[what, file], ...], "closed": [...]}`` (found while the last store
was open, and after it closed), where ``what`` is a marker or ``uninitialised <n> bytes``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

USERS = {"zebra-user-7731": ["zebracorn-7731", "ZebraQuill-5521", "Zebrafen-9002"],
         "okapi-user-4410": ["okapiberry-4410", "OkapiLute-3312", "okapimoor-6604"]}
PERTURB = 0x5A
"""``glibc.malloc.perturb``: freed memory is filled with it, new allocations with its complement."""
_UNWRITTEN = re.compile(re.escape(bytes([PERTURB ^ 0xFF])) + b"{64,}")


def heap_env(*, perturb: bool = False) -> dict[str, str]:
    """The environment of a probe: glibc keeps freed memory in one arena, large blocks included
    (nothing is trimmed or given its own mapping), so what a later allocation gets is what the
    process freed before; with ``perturb`` every allocation starts as a known byte instead."""
    tunables = ["glibc.malloc.arena_max=1", "glibc.malloc.mmap_threshold=4194304",
                "glibc.malloc.trim_threshold=1073741824"]
    if perturb:
        tunables.append(f"glibc.malloc.perturb={PERTURB}")
    repo = str(Path(__file__).resolve().parents[1])  # this checkout's package first
    path = os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "GLIBC_TUNABLES": ":".join(tunables), "PYTHONPATH": path}


class HashEmbeddings:
    """Deterministic unit vectors of 384 floats (MiniLM's size, so the HNSW files are as large)."""

    embedding_space = "tests.HashEmbeddings:384"

    def _one(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def fill_heap(threads: int = 2, strings: int = 1000, size: int = 20_000) -> None:
    """Allocate and free ~``threads * strings * size`` bytes of the users' text, in threads that exit."""
    text = " ".join(m for marks in USERS.values() for m in marks)

    def run() -> None:
        junk = [f"{text} {n} ".encode().ljust(size, b".") for n in range(strings)]
        del junk

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def scan(root: Path) -> list[list[str]]:
    """Each marker (as written and lowercased) and each run of unwritten bytes found under ``root``."""
    found: list[list[str]] = []
    for folder, _, names in os.walk(root):
        for name in names:
            data = (Path(folder) / name).read_bytes()
            found += [[m, name] for marks in USERS.values() for m in marks
                      if m.encode() in data or m.lower().encode() in data]
            found += [[f"uninitialised {len(run)} bytes", name] for run in _UNWRITTEN.findall(data)]
    return found


def write(store: Any) -> None:
    """Both users' turns, a fact, a rule and a LangGraph item (every kind of collection)."""
    from nova_memory_integrations.langgraph import NovaLangGraphStore

    for user, (a, b, c) in USERS.items():
        store.add_turns([
            {"user_id": user, "role": "user", "content": f"My secret garden password is {a}.", "session_id": f"{b}-chat"},
            {"user_id": user, "role": "assistant", "content": f"Noted: {a}. I will remember {b}."},
            {"user_id": user, "role": "user", "content": f"I live in {c} and I work at {b}."},
        ])
        store.add_fact(user, "user", "favorite_word", a)
        store.add_rule(user, f"user mentions {b}", f"reply with {c}")
        NovaLangGraphStore(store, index_fields=["text"]).put((user, "notes"), "k", {"text": f"{a} note about {c}"})
    store.flush()


def read(store: Any) -> None:
    """What a process that only answers does: searches, contexts, the items, the counts."""
    from nova_memory_integrations.langgraph import NovaLangGraphStore

    for user, (a, _, c) in USERS.items():
        store.search(a, user, k=3)
        store.context("what is my garden password?", user, budget_tokens=300)
        NovaLangGraphStore(store, index_fields=["text"]).search((user,), query=f"{a} note about {c}")
    store.components.vectors.count("episode")


def main(argv: list[str]) -> int:
    from nova_memory_integrations import NovaStore

    scenario, root = argv[0], Path(argv[1])
    if scenario != "write":
        fill_heap()
    if scenario == "long":  # stores opened, written and closed first: their threads are gone
        for n in range(3):
            with NovaStore(root.parent / f"{root.name}-before-{n}", embeddings=HashEmbeddings()) as before:
                write(before)
            fill_heap()
    store = NovaStore(root, embeddings=HashEmbeddings())
    if scenario == "reopen":
        read(store)
    else:
        write(store)
        read(store)
    found = {"open": scan(root / "chroma")}
    store.close()
    if scenario == "long":  # and a store an earlier round wrote, reopened in this process
        with NovaStore(root.parent / f"{root.name}-before-0", embeddings=HashEmbeddings()) as again:
            read(again)
            found["open"] += scan(root.parent / f"{root.name}-before-0" / "chroma")
    found["closed"] = scan(root / "chroma")
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
