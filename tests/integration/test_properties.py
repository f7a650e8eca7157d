"""Property-based tests (hypothesis) over random operation sequences for several users.

Invariants: no cross-user leakage (SQLite reads, vector hits, export), counts consistent
with a model of the operations, and export -> import reproduces the users' rows.
Real embeddings are used, so examples are few; one pair of stores is shared per test and
every example works on fresh user ids.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nova_memory_integrations import NovaStore

TEXTS = [
    "I live in Lisbon.", "I moved to Berlin.", "My cat is called Miso.", "I like tea.", "I work at Acme.",
    "My favourite colour is blue.", "I like climbing on weekends.", "The weather is grey today.",
]
OBJECTS = ["Lisbon", "Berlin", "tea", "chess", "Porto"]
N_USERS = 3

user_idx = st.integers(0, N_USERS - 1)
op = st.one_of(
    st.tuples(st.just("add"), user_idx, st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.just("fact"), user_idx, st.sampled_from(["likes", "lives_in"]), st.sampled_from(OBJECTS)),
    st.tuples(st.just("rule"), user_idx, st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.just("delete"), user_idx, st.integers(0, 50)),
    st.tuples(st.just("forget"), user_idx),
    st.tuples(st.just("consolidate"), user_idx),
)
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _export(store: NovaStore, users: list[str]) -> list[str]:
    buf = io.StringIO()
    store.export(buf, user_id=users)
    return buf.getvalue().splitlines()[1:]


def test_random_operation_sequences(tmp_path: Path, minilm: Any) -> None:
    store = NovaStore(tmp_path / "a", embeddings=minilm)
    mirror = NovaStore(tmp_path / "b", embeddings=minilm)
    counter = itertools.count()

    @SETTINGS
    @given(ops=st.lists(op, min_size=1, max_size=12))
    def run(ops: list[tuple[Any, ...]]) -> None:
        n = next(counter)
        users = [f"ex{n}-u{i}" for i in range(N_USERS)]
        episodes: dict[str, list[str]] = {u: [] for u in users}
        rules: dict[str, list[str]] = {u: [] for u in users}
        for kind, u, *args in ops:
            user = users[u]
            if kind == "add":
                episodes[user].append(store.add_turn(user, "user", TEXTS[args[0]]).id)
            elif kind == "fact":
                store.add_fact(user, "user", args[0], args[1])
            elif kind == "rule":
                rules[user].append(store.add_rule(user, TEXTS[args[0]], f"action for {user}").id)
            elif kind == "delete" and episodes[user]:
                victim = episodes[user].pop(args[0] % len(episodes[user]))
                assert store.delete(user, [victim])["episodes"] == [victim]
            elif kind == "forget":
                store.forget(user)
                episodes[user], rules[user] = [], []
            elif kind == "consolidate":
                store.consolidate(user)
        store.flush()
        for user in users:
            stats = store.stats(user)
            assert stats["episodes"] == len(episodes[user]) and stats["rules"] == len(rules[user])
            assert [e.id for e in store.episodes(user)] == episodes[user]
            assert set(store.components.vectors.get_user_ids("episode", user)) == set(episodes[user])
            assert {r.id for r in store.rules(user)} == set(rules[user])
            assert all(f.user_id == user for f in store.facts(user, include_history=True))
            for hit in store.search(TEXTS[0], user, k=20, kinds=("episode", "fact", "rule")):
                owner = (hit.episode or hit.fact or hit.rule).user_id  # type: ignore[union-attr]
                assert owner == user, "cross-user leakage"
                assert hit.kind != "episode" or hit.id in episodes[user]
        # export -> import reproduces exactly these users' rows, and only theirs
        lines = _export(store, users)
        assert {json.loads(line)["row"]["user_id"] for line in lines} <= set(users)
        header = json.dumps({"kind": "header", "format": "nova-memory", "version": 1, "users": users})
        report = mirror.import_(io.StringIO("\n".join([header, *lines])))
        assert sum(report.skipped.values()) == 0
        assert _export(mirror, users) == lines
        for user in users:
            assert [e.id for e in mirror.episodes(user)] == episodes[user]

    try:
        run()
    finally:
        store.close()
        mirror.close()
