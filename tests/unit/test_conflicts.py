"""Conflict detection and strategies, confidence explanations: the pure functions (no store).

The same rules on the real store are in ``tests/integration/test_store_conflicts.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

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


def test_confidence_explanation_pure() -> None:
    exp = explain_confidence(0.8, observations=1, rate=0.3, cap=0.95, age_days=180, half_life_days=180)
    assert exp.initial == 0.8 and exp.effective == pytest.approx(0.4) and exp.decay_factor == pytest.approx(0.5)
    exp = explain_confidence(0.8 + 0.15 * 0.3, observations=2, rate=0.3, cap=0.95, age_days=0, half_life_days=180)
    assert exp.initial == pytest.approx(0.8) and exp.steps == pytest.approx((0.8, 0.845))
    assert exp.effective == exp.stored and "2 observation(s)" in exp.text


