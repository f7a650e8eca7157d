"""Conflict resolution and confidence explanations on the real store (real MiniLM, real Chroma).

The pure detection and strategy functions are in ``tests/unit/test_conflicts.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import pairwise

import pytest

from nova_memory_integrations import NovaConfig, NovaStore

pytestmark = pytest.mark.both_backends  # the store fixtures run on SQLite and on Postgres (conftest)

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T1 = T0 + timedelta(days=30)


def test_store_trusts_the_newer_value_and_records_it(store: NovaStore) -> None:
    store.add_fact("a", "user", "lives_in", "Berlin", valid_from=T0)
    decision = store.add_fact("a", "user", "lives_in", "Munich", valid_from=T1)
    assert decision.op == "UPDATE"
    (conflict,) = store.conflicts("a")
    assert (conflict.kind, conflict.strategy, conflict.winner, conflict.status) == (
        "single_valued", "trust_newer", "new", "resolved")
    assert (conflict.existing_object, conflict.new_object, conflict.new_fact_id) == ("Berlin", "Munich",
                                                                                     decision.fact_id)
    assert [f.object for f in store.facts("a", predicate="lives_in")] == ["Munich"]
    assert store.conflicts("b") == []  # tenancy


def test_store_keeps_a_much_more_confident_fact(store: NovaStore) -> None:
    store.add_fact("a", "user", "works_at", "Initech", valid_from=T0, confidence=0.9)
    decision = store.add_fact("a", "user", "works_at", "Globex", valid_from=T1, confidence=0.4)
    assert decision.op == "NOOP" and "more confident" in decision.reason
    assert [f.object for f in store.facts("a", predicate="works_at", include_history=True)] == ["Initech"]
    (conflict,) = store.conflicts("a")
    assert (conflict.strategy, conflict.winner, conflict.new_fact_id) == ("trust_higher_confidence", "existing", None)


def test_store_keeps_both_and_flags_simultaneous_contradictions(store: NovaStore) -> None:
    store.add_fact("a", "user", "favorite_color", "blue", valid_from=T0)
    decision = store.add_fact("a", "user", "favorite_color", "green", valid_from=T0)
    assert decision.op == "ADD"
    assert {f.object for f in store.facts("a", predicate="favorite_color")} == {"blue", "green"}
    (flagged,) = store.conflicts("a", flagged_only=True)
    assert flagged.strategy == "keep_both" and flagged.status == "flagged"


def test_opposite_predicates_supersede(store: NovaStore) -> None:
    store.add_fact("a", "user", "likes", "coffee", valid_from=T0)
    decision = store.add_fact("a", "user", "dislikes", "coffee", valid_from=T1)
    assert decision.op == "UPDATE" and decision.replaced_fact_id is not None
    assert store.facts("a", predicate="likes") == [] and [f.object for f in store.facts("a", predicate="dislikes")] \
        == ["coffee"]
    assert store.conflicts("a")[0].kind == "opposite_predicate"
    assert [f.object for f in store.facts("a", predicate="likes", as_of=T0 + timedelta(days=1))] == ["coffee"]


def test_policy_is_configurable(make_store: object) -> None:
    cfg = NovaConfig.from_dict({"facts": {"conflict_strategy": "keep_both"}})
    s: NovaStore = make_store(config=cfg)  # type: ignore[operator]
    s.add_fact("a", "user", "lives_in", "Berlin", valid_from=T0)
    s.add_fact("a", "user", "lives_in", "Munich", valid_from=T1)
    assert {f.object for f in s.facts("a", predicate="lives_in")} == {"Berlin", "Munich"}
    assert s.conflicts("a")[0].status == "flagged"


def test_store_explains_reinforcement_and_decay(store: NovaStore) -> None:
    decision = store.add_fact("a", "user", "likes", "hiking", valid_from=T0, confidence=0.6)
    for _ in range(3):
        store.add_fact("a", "user", "likes", "hiking", valid_from=T0)
    (fact,) = store.facts("a", predicate="likes")
    exp = store.explain_confidence("a", decision.fact_id or "")  # type: ignore[arg-type]
    assert exp.observations == 4 and exp.initial == pytest.approx(0.6) and exp.stored == fact.confidence
    gains = [b - a for a, b in pairwise(exp.steps)]
    assert all(g2 < g1 for g1, g2 in pairwise(gains)) and exp.steps[-1] <= 0.95  # diminishing returns
    later = store.explain_confidence("a", fact.id, at=datetime.now(timezone.utc) + timedelta(days=180))
    assert later.effective == pytest.approx(fact.confidence / 2, rel=1e-3)
    from nova_memory_integrations import NotFoundError

    with pytest.raises(NotFoundError):
        store.explain_confidence("b", fact.id)
