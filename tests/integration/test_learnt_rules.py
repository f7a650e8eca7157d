"""Learnt rules (issue #40): a user who states the same preference about replies in N distinct
sessions teaches a procedural rule, with the turns as provenance; one-off asks, one session's
repeats, someone else's wish and the assistant's own words teach nothing. Real SQLite, Chroma, MiniLM.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.errors import NotFoundError
from nova_memory_integrations.types import LEARNT

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def _session(store: NovaStore, user: str, n: int, *turns: tuple[str, str]) -> None:
    """Session ``s<n>`` on day ``n``: the given (role, text) turns among some chatter."""
    at = T0 + timedelta(days=n)
    chat = [("user", f"Day {n}: I went for a walk by the canal before work."), *turns,
            ("assistant", "Here is what I found about your question.")]
    for i, (role, text) in enumerate(chat):
        store.add_turn(user, role, text, session_id=f"s{n}", timestamp=at + timedelta(minutes=i))


def _learnt(store: NovaStore, user: str) -> list[Any]:
    return [r for r in store.rules(user) if r.metadata.get(LEARNT)]


@pytest.fixture
def learner(make_store: Any, tmp_path: Path) -> Any:
    def open_store(name: str, **consolidation: Any) -> NovaStore:
        cfg = NovaConfig()
        for key, value in consolidation.items():
            setattr(cfg.consolidation, key, value)
        store: NovaStore = make_store(tmp_path / name, config=cfg)
        return store

    return open_store


def test_the_same_preference_in_three_sessions_becomes_a_rule_with_provenance(learner: Any) -> None:
    store = learner("three")
    wordings = ["Can you put that in bullet points?", "Bullet points please, it's easier to skim.",
                "From now on, format your answers as bullet points."]
    for n, text in enumerate(wordings[:2], start=1):
        _session(store, "dee", n, ("user", text))
        store.consolidate("dee")
    assert _learnt(store, "dee") == [] and store.rule_proposals("dee") == []  # two sessions teach nothing yet
    _session(store, "dee", 3, ("user", wordings[2]))
    store.consolidate("dee")
    (rule,) = _learnt(store, "dee")
    assert rule.action == "Format replies as bullet points." and rule.metadata[LEARNT] == "bullets"
    assert rule.metadata["sessions"] == ["s1", "s2", "s3"]
    told = {e.id: e.content for e in store.get_episodes("dee", rule.metadata["episode_ids"])}
    assert sorted(told.values()) == sorted(wordings)  # provenance: exactly the three turns
    assert 0.7 < rule.confidence <= 0.95
    ctx = store.context("what should I cook for dinner?", "dee", budget_tokens=200)
    assert "bullet points" in ctx.text  # a rule about every reply is in every context
    assert any(s.id == rule.id and s.reason.startswith("guaranteed slot") for s in ctx.sources)
    _session(store, "dee", 4, ("user", "Use bullet points."))
    store.consolidate("dee")
    assert len(_learnt(store, "dee")) == 1  # not learnt twice


@pytest.mark.parametrize("turns", [
    pytest.param([[("user", "Keep it short."), ("user", "Shorter please."), ("user", "Too long!")]],
                 id="three-times-in-one-session"),
    pytest.param([[("user", "Keep it short.")], [("user", "Keep your answers brief.")]], id="two-sessions"),
    pytest.param([[("user", "My manager wants me to keep it short.")]] * 3, id="someone-elses-wish"),
    pytest.param([[("user", "Use bullet points for the slide about Q3 revenue.")]] * 3, id="one-off-content"),
    pytest.param([[("user", "Should I use bullet points in my essay?")]] * 3, id="a-question"),
    pytest.param([[("assistant", "I'll keep it short.")]] * 3, id="the-assistants-words"),
    pytest.param([[("user", "Keep it short.")], [("user", "Use bullet points.")], [("user", "No emojis please.")]],
                 id="three-different-preferences"),
])
def test_what_must_not_be_learnt(learner: Any, turns: list[list[tuple[str, str]]]) -> None:
    store = learner("never")
    for n, session in enumerate(turns, start=1):
        _session(store, "eli", n, *session)
    store.consolidate("eli")
    assert _learnt(store, "eli") == [] and store.rule_proposals("eli") == []


def test_the_count_is_configurable_and_sessions_are_per_user(learner: Any) -> None:
    store = learner("two", learn_after_sessions=2)
    _session(store, "fay", 1, ("user", "No emojis please."))
    _session(store, "gus", 2, ("user", "Stop using emojis."))  # another user's session does not count for fay
    store.consolidate()
    assert _learnt(store, "fay") == [] and _learnt(store, "gus") == []
    _session(store, "fay", 3, ("user", "Please don't use emojis in your replies."))
    store.consolidate()
    assert [r.metadata[LEARNT] for r in _learnt(store, "fay")] == ["no_emoji"] and _learnt(store, "gus") == []


def test_suggest_mode_proposes_and_the_app_adopts(learner: Any) -> None:
    store = learner("suggest", learn_rules="suggest")
    for n, text in enumerate(["Use metric units.", "In celsius please.", "I prefer metric."], start=1):
        _session(store, "hal", n, ("user", text))
    store.consolidate("hal")
    assert _learnt(store, "hal") == []
    (proposal,) = store.rule_proposals("hal")
    assert (proposal.key, proposal.action, len(proposal.sessions)) == ("metric", "Use metric units.", 3)
    rule = store.adopt_rule("hal", "metric")
    assert rule.metadata["episode_ids"] == list(proposal.episode_ids)
    assert store.rule_proposals("hal") == []
    with pytest.raises(NotFoundError):
        store.adopt_rule("hal", "bullets")


def test_a_deleted_learnt_rule_comes_back_only_when_asked_again(learner: Any) -> None:
    store = learner("deleted")
    for n in (1, 2, 3):
        _session(store, "ivy", n, ("user", "Keep it short."))
    store.consolidate("ivy")
    (rule,) = _learnt(store, "ivy")
    store.delete("ivy", [rule.id])
    _session(store, "ivy", 4, ("user", "I had pasta for lunch."))
    store.consolidate("ivy")
    assert _learnt(store, "ivy") == []  # no new instruction: the app's deletion stands
    _session(store, "ivy", 5, ("user", "Be brief!"))
    store.consolidate("ivy")
    assert [len(r.metadata["sessions"]) for r in _learnt(store, "ivy")] == [4]


def test_off_learns_and_proposes_nothing(learner: Any) -> None:
    store = learner("off", learn_rules="off")
    for n in (1, 2, 3):
        _session(store, "jon", n, ("user", "Use bullet points."))
    store.consolidate("jon")
    assert _learnt(store, "jon") == [] and store.rule_proposals("jon") == []
