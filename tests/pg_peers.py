"""One peer process of the Postgres peers test (``tests/integration/test_postgres_peers.py``).

Started with multiprocessing's ``spawn`` (nothing inherited but the arguments): it opens its own
``NovaStore`` on the shared database, adds, reads, consolidates and forgets for every user in
rounds the processes run in step (a barrier), and writes what it saw to ``out`` as JSON:
the episode ids ``add_turn`` acknowledged, the episode ids its indexer wrote vectors for, the
errors it met, the other users' markers any read returned, and whether forgotten users showed.
"""

from __future__ import annotations

import json
import re
import traceback
from pathlib import Path
from typing import Any

COLOURS = ("blue", "green", "red", "yellow", "purple")
MARKER = re.compile(r"mk-(u\d+)-p\d+-r\d+")


def marker(user: str, proc: int, round_: int) -> str:
    """A token only ``user``'s turn of that process and round holds."""
    return f"mk-{user}-p{proc}-r{round_}"


def peer(url: str, data_dir: str, proc: int, users: list[str], rounds: int, forgotten: list[str],
         barrier: Any, out: str, env: dict[str, str] | None = None) -> None:
    """The peer's run (see the module docstring). ``env``: set before the package is imported (a
    "host" of its own: HOME, model cache)."""
    if env:
        import os

        os.environ.update(env)
        os.environ.pop("NOVA_MEMORY_DATABASE_URL", None)
    from nova_memory_integrations import NovaConfig, NovaStore

    report: dict[str, Any] = {"acked": [], "embedded": [], "errors": [], "foreign": [], "forgotten_seen": []}
    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"}})
    store = NovaStore(Path(data_dir), database_url=url, config=config)
    write = store.components.vectors.upsert

    def counting(kind: str, ids: Any, embeddings: Any, metadatas: Any) -> None:
        write(kind, ids, embeddings, metadatas)  # type: ignore[arg-type]
        if kind == "episode":
            report["embedded"].extend(ids)

    store.components.vectors.upsert = counting  # type: ignore[method-assign]
    store.components.indexer.sweep_s = 0.2  # sweep often: the peers contend for each other's rows (claims decide)

    def attempt(what: str, fn: Any) -> Any:
        try:
            return fn()
        except Exception as exc:
            report["errors"].append(f"{what}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
            return None

    for r in range(rounds):
        for user in users:
            for text in (f"Today I wrote down the note {marker(user, proc, r)} about my plans.",
                         f"My favourite colour is {COLOURS[(proc + r + int(user[1:])) % len(COLOURS)]}."):
                ep = attempt("add_turn", lambda t=text, u=user: store.add_turn(u, "user", t))
                if ep is not None:
                    report["acked"].append(ep.id)
        for user in users:  # every process consolidates every user: one at a time per user (the lock)
            attempt("consolidate", lambda u=user: store.consolidate(u))
        for user in users:
            ctx = attempt("context", lambda u=user: store.context("which notes did I write down?", u))
            if ctx is not None:
                report["foreign"] += [m.group(0) for m in MARKER.finditer(ctx.text) if m.group(1) != user]
        barrier.wait(timeout=600)
    if proc == 0:
        for user in forgotten:
            attempt("forget", lambda u=user: store.forget(u))
    barrier.wait(timeout=600)
    for user in forgotten:  # once forget has returned in one process, no process shows the user
        ctx = attempt("context after forget", lambda u=user: store.context("which notes did I write down?", u))
        facts = attempt("facts after forget", lambda u=user: store.facts(u))
        if (ctx is not None and MARKER.search(ctx.text)) or facts:
            report["forgotten_seen"].append(user)
    attempt("flush", lambda: store.flush(timeout=300))
    barrier.wait(timeout=600)
    store.close()
    Path(out).write_text(json.dumps(report))


def importer(url: str, data_dir: str, turns: int) -> None:
    """A peer that imports ``turns`` turns, then idles while its indexer embeds them (to be killed)."""
    import time

    from nova_memory_integrations import NovaConfig, NovaStore

    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"}, "indexing": {"max_batch_size": 32}})
    store = NovaStore(Path(data_dir), database_url=url, config=config)
    store.add_turns([{"user_id": f"imp{n % 5}", "role": "user", "content": f"Imported line {n}: the shipment "
                      f"number {n * 7919 % 10007} left the dock."} for n in range(turns)])
    while True:  # killed with SIGKILL by the test
        time.sleep(1)


def lifecycle_peer(url: str, data_dir: str, interval: float, seconds: float, barrier: Any, out: str) -> None:
    """A peer whose store schedules a lifecycle pass every ``interval`` seconds: once every peer is open
    (the barrier), it counts for ``seconds`` the passes it made and those it left to another's lease."""
    import time

    from nova_memory_integrations import NovaConfig, NovaStore

    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"},
                                   "lifecycle": {"retention_days": 3650, "schedule_interval_s": interval}})
    store = NovaStore(Path(data_dir), database_url=url, config=config)
    scheduler = store._lifecycle
    store.add_turn(f"life-{Path(data_dir).name}", "user", "A turn for the lifecycle to look at.")
    barrier.wait(timeout=600)
    passes, skipped = scheduler.passes, scheduler.skipped
    time.sleep(seconds)
    report = {"passes": scheduler.passes - passes, "skipped": scheduler.skipped - skipped, "running": scheduler.running}
    store.close()
    Path(out).write_text(json.dumps(report))


HOST_QUERY = "which parcel notes did I write down?"
TOPICS = {("a", 0): "the garden shed key", ("a", 1): "a dentist appointment on Friday",
          ("b", 0): "train tickets to Porto", ("b", 1): "the birthday cake for grandma"}
HOST_MARKER = re.compile(r"hostmk-(\w+?)-(\w+?)-\d")


def host(url: str, root: str, name: str, model_cache: str, barrier: Any, out: str) -> None:
    """One "host" of the two-hosts test: its own HOME, data directory and model cache (set before the
    package is imported), the database reached by URL over TCP only. It reads its users first (so its
    caches hold them), writes for a shared user and one of its own, reads what the other host wrote,
    then host ``a`` forgets the shared user and both read it again."""
    import os

    home = Path(root)
    os.environ.update({"HOME": str(home), "NOVA_MEMORY_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
                       "NOVA_MEMORY_MODEL_CACHE": model_cache})
    os.environ.pop("NOVA_MEMORY_DATABASE_URL", None)
    from nova_memory_integrations import NovaConfig, NovaStore

    report: dict[str, Any] = {"errors": [], "seen": {}, "after_forget": {}}
    store = NovaStore(config=NovaConfig.from_dict({"consolidation": {"mode": "manual"},
                                                   "retrieval": {"reranker": "fallback"}}), database_url=url)
    own, other = f"only-{name}", f"only-{'b' if name == 'a' else 'a'}"

    def seen(user: str) -> dict[str, Any]:
        ctx = store.context(HOST_QUERY, user)
        return {"context": sorted({m.group(0) for m in HOST_MARKER.finditer(ctx.text)}),
                "facts": sorted(f.object for f in store.facts(user)),
                "graph": store.components.graph.graph(user).number_of_edges(),  # this process's cache
                "search": len(store.search(HOST_QUERY, user, k=10)), "episodes": len(store.episodes(user))}

    try:
        for user in ("shared", own, other):
            seen(user)  # fill this host's caches of every user first
        barrier.wait(timeout=600)
        for i in range(2):  # distinct turns (near-duplicates would be merged in a context)
            store.add_turn("shared", "user", f"Today I wrote down the parcel note hostmk-{name}-shared-{i} about"
                                             f" {TOPICS[(name, i)]}.")
            store.add_turn(own, "user", f"Today I wrote down the parcel note hostmk-{name}-{own.replace('-', '')}-{i}"
                                        f" about {TOPICS[(name, 1 - i)]}.")
        store.add_fact("shared", "user", "likes", f"kayak{name}")
        store.consolidate("shared")
        assert store.flush(timeout=300)
        barrier.wait(timeout=600)
        report["seen"] = {u: seen(u) for u in ("shared", own, other)}
        barrier.wait(timeout=600)
        if name == "a":
            report["forgot"] = store.forget("shared")
        barrier.wait(timeout=600)
        report["after_forget"] = seen("shared")
    except Exception as exc:
        report["errors"].append(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")
        barrier.abort()
    finally:
        store.close()
        Path(out).write_text(json.dumps(report))
