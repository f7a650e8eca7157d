"""Conflict detection and strategies (pure functions, then on the real store); confidence explanations."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import pairwise

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.memory.conflicts import (
    Claim,
    Held,
    explain_confidence,
    find_contradictions,
    judge,
    resolve_conflicts,
)

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T1 = T0 + timedelta(days=30)


def _held(obj: str, at: datetime = T0, conf: float = 0.8, predicate: str = "lives_in") -> Held:
    return Held(f"fa_{obj}", predicate, obj, at, None, conf)


def _claim(obj: str, at: datetime = T1, conf: float = 0.8, predicate: str = "lives_in") -> Claim:
    return Claim("user", predicate, obj, at, conf)


def test_detects_single_valued_and_opposite_predicate_contradictions() -> None:
    held = [_held("berlin"), _held("munich", conf=0.7), _held("jazz", predicate="dislikes"),
            Held("fa_old", "lives_in", "rome", T0 - timedelta(days=90), T0, 0.8)]
    found = find_contradictions(_claim("munich"), held, single_valued=True, opposite=None)
    assert [(c.kind, c.held.object_norm) for c in found] == [("single_valued", "berlin")]  # ended facts: history
    found = find_contradictions(_claim("jazz", predicate="likes"), held, single_valued=False, opposite="dislikes")
    assert [(c.kind, c.held.id) for c in found] == [("opposite_predicate", "fa_jazz")]
    assert find_contradictions(_claim("oslo"), held, single_valued=False, opposite=None) == []


@pytest.mark.parametrize(
    ("claim", "held", "policy", "strategy", "winner"),
    [
        (_claim("munich"), _held("berlin"), "auto", "trust_newer", "new"),
        (_claim("munich", conf=0.4), _held("berlin", conf=0.9), "auto", "trust_higher_confidence", "existing"),
        (_claim("munich", conf=0.95), _held("berlin", conf=0.5), "auto", "trust_higher_confidence", "new"),
        (_claim("munich", at=T0), _held("berlin"), "auto", "keep_both", "both"),
        (_claim("munich", at=T0 - timedelta(days=5)), _held("berlin"), "auto", "trust_newer", "history"),
        (_claim("munich", conf=0.4), _held("berlin", conf=0.9), "trust_newer", "trust_newer", "new"),
        (_claim("munich", conf=0.7), _held("berlin", conf=0.8), "trust_higher_confidence",
         "trust_higher_confidence", "existing"),
        (_claim("munich"), _held("berlin"), "keep_both", "keep_both", "both"),
    ],
)
def test_strategies(claim: Claim, held: Held, policy: str, strategy: str, winner: str) -> None:
    (contradiction,) = find_contradictions(claim, [held], single_valued=True, opposite=None)
    verdict = judge(claim, contradiction, policy=policy, gap=0.3)  # type: ignore[arg-type]
    assert (verdict.strategy, verdict.winner) == (strategy, winner) and verdict.reason


def test_outcome_combines_verdicts() -> None:
    out = resolve_conflicts(_claim("munich"), [_held("berlin")], single_valued=True)
    assert out.apply_new and out.close_ids == ("fa_berlin",) and not out.keep_both
    out = resolve_conflicts(_claim("munich", conf=0.3), [_held("berlin", conf=0.9)], single_valued=True)
    assert not out.apply_new and out.close_ids == ()
    out = resolve_conflicts(_claim("munich", at=T0), [_held("berlin")], single_valued=True)
    assert out.apply_new and out.keep_both and out.close_ids == ()


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


def test_confidence_explanation_pure() -> None:
    exp = explain_confidence(0.8, observations=1, rate=0.3, cap=0.95, age_days=180, half_life_days=180)
    assert exp.initial == 0.8 and exp.effective == pytest.approx(0.4) and exp.decay_factor == pytest.approx(0.5)
    exp = explain_confidence(0.8 + 0.15 * 0.3, observations=2, rate=0.3, cap=0.95, age_days=0, half_life_days=180)
    assert exp.initial == pytest.approx(0.8) and exp.steps == pytest.approx((0.8, 0.845))
    assert exp.effective == exp.stored and "2 observation(s)" in exp.text


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
