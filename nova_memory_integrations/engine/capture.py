"""Recording turns: validate, run the ``before_add`` hooks, store durably, queue for indexing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .. import _tracing
from .._time import utcnow
from ..config import LimitsConfig
from ..errors import InvalidInputError
from ..types import Episode
from .components import Components
from .hooks import Veto
from .validation import check_turn

__all__ = ["record_turns"]


def record_turns(components: Components, turns: Iterable[Mapping[str, Any]]) -> list[Episode]:
    """Store ``turns`` atomically (all validated before any is written); the stored episodes.

    A ``before_add`` hook may change a turn (e.g. redact it: the changed text is what SQLite
    and the vector index receive) or veto it (not stored); ``after_add`` hooks see the
    stored episodes per user.

    Raises:
        InvalidInputError: a turn (or what a hook made of it) is invalid.
    """
    with _tracing.span("nova_memory.capture") as traced:
        episodes = _record(components, turns)
        if traced.is_recording():
            users = sorted({e.user_id for e in episodes})  # one user a call, nearly always
            traced.set_attributes({_tracing.USER_ID: users[0] if len(users) == 1 else users,
                                   "nova_memory.episodes": len(episodes)})
            _tracing.text(traced, components.config.tracing.content, "nova_memory.content",
                          "\n".join(e.content for e in episodes))
        return episodes


def _record(components: Components, turns: Iterable[Mapping[str, Any]]) -> list[Episode]:
    now = utcnow()
    limits = components.config.limits
    episodes = [check_turn(t, limits, now) for t in turns]
    hooks = components.hooks
    if hooks.active("before_add"):
        kept = []
        for episode in episodes:
            try:
                out = hooks.run("before_add", episode.user_id, episode)
            except Veto:
                continue
            kept.append(episode if out == episode else _recheck(out, episode, limits, now))
        episodes = kept
    if not episodes:
        return []
    components.db.insert_episodes(episodes)
    components.indexer.submit("episodes", [(e.id, e.user_id) for e in episodes])
    if hooks.active("after_add"):
        for user_id in dict.fromkeys(e.user_id for e in episodes):
            hooks.run_list("after_add", user_id, [e for e in episodes if e.user_id == user_id])
    return episodes


def _recheck(episode: Any, original: Episode, limits: LimitsConfig, now: datetime) -> Episode:
    """A hook's replacement turn, validated like any turn; its id and user stay the original's."""
    if not isinstance(episode, Episode):
        raise InvalidInputError(f"a before_add hook returned {type(episode).__name__}, not an Episode", field="hook")
    turn = {"user_id": original.user_id, "role": episode.role, "content": episode.content,
            "session_id": episode.session_id, "timestamp": episode.timestamp, "metadata": episode.metadata,
            "importance": episode.importance}
    return check_turn(turn, limits, now).model_copy(update={"id": original.id})
