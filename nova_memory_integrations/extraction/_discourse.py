"""What a conversation has said so far, for the rule-based extractor (:mod:`.deterministic`).

* :class:`Discourse`: the relatives a turn named ("my brother Luis": a later "my brother" is Luis) and the
  last other person talked about (a later "he" / "she"). It is shared by the turns of one speaker in a
  batch, and by the turns of one conversation session across batches.
* :class:`SessionMemory`: those discourses by ``(user, session, role)``, bounded (least recently used
  forgotten first) and forgotten after a gap without a turn; a turn without a session shares only its
  batch's.
* :func:`starting_later`: a new job or school that the turn says begins later ("I start on January 6th")
  holds from then, not from when it was said.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from ..text.dates import resolve_relative_time
from ..text.lexicon import REL_KINDS
from ..types import Episode
from ._frames import STARTING_PREDICATES, STARTS_LATER
from .base import CandidateFact

__all__ = ["SESSION_GAP", "SESSION_LIMIT", "Discourse", "SessionMemory", "starting_later"]

SESSION_LIMIT = 4096
"""Sessions whose discourse is remembered."""
SESSION_GAP = timedelta(hours=12)
"""A session's discourse is forgotten after this long without a turn."""


@dataclass
class Discourse:
    """What the earlier turns of a conversation named: relatives by name, the last other person talked about."""

    aliases: dict[str, str] = field(default_factory=dict)
    third: str | None = None
    at: datetime | None = None
    pets: dict[str, tuple[str, str]] = field(default_factory=dict)
    """A named pet -> (its owner, the ``has_pet`` value): "Nugget died" ends Oscar's hamster."""
    carried: str | None = None
    """The person carried over from the speaker's previous conversation: "he" / "she" may mean them, "they"
    (most often a group) not."""


class SessionMemory:
    """The discourse of each recent session, bounded; thread-safe."""

    def __init__(self, limit: int = SESSION_LIMIT, gap: timedelta = SESSION_GAP) -> None:
        self.limit, self.gap = limit, gap
        self._sessions: OrderedDict[tuple[str, str, str], Discourse] = OrderedDict()
        self._speakers: OrderedDict[tuple[str, str], Discourse] = OrderedDict()  # (user, role) -> latest discourse
        self._lock = threading.Lock()

    def state_for(self, episode: Episode, batch: dict[str, Discourse]) -> Discourse:
        """The discourse ``episode`` continues: its session's (while the session goes on), else its batch's,
        else a copy of the speaker's latest one (a user's next conversation opens on what the last one named:
        "He's done it, retired!" is about the dad of the turn before, "my brother" is still Luis)."""
        role = episode.role.strip().lower()
        if episode.session_id is None:
            return batch.setdefault(role, Discourse())
        key = (episode.user_id, episode.session_id, role)
        speaker = (episode.user_id, role)
        with self._lock:
            state = self._sessions.pop(key, None)
            if state is None or state.at is None or abs(episode.timestamp - state.at) > self.gap:
                state = batch.get(role) or self._continued(speaker)
            state.at = episode.timestamp
            self._sessions[key] = state
            self._speakers.pop(speaker, None)
            self._speakers[speaker] = state
            for table in (self._sessions, self._speakers):
                while len(table) > self.limit:
                    table.popitem(last=False)
        batch[role] = state
        return state

    def _continued(self, speaker: tuple[str, str]) -> Discourse:
        """A new discourse that starts from what the speaker's latest one named (a copy: sessions stay apart)."""
        last = self._speakers.get(speaker)
        if last is None:
            return Discourse()
        # a pronoun opening a new conversation means a relative the last one was about, not any name it used
        known = last.third is not None and (last.third in REL_KINDS or last.third in last.aliases.values())
        third = last.third if known else None
        return Discourse(aliases=dict(last.aliases), third=third, pets=dict(last.pets), carried=third)

    def __len__(self) -> int:
        return len(self._sessions)


def starting_later(found: Sequence[CandidateFact], text: str, reference: datetime) -> list[CandidateFact]:
    """``found`` with the start date the turn gives a new job or school ("I start on January 6th")."""
    out = list(found)
    cue = STARTS_LATER.search(text)
    if cue is None or not any(c.predicate in STARTING_PREDICATES and c.valid_from is None for c in out):
        return out
    when = resolve_relative_time(cue.group("when"), reference)
    if when is not None and when < reference - timedelta(days=1):  # a day and month without a year: the next one
        try:
            when = when.replace(year=when.year + 1)
        except ValueError:
            when = None
    if when is None or when <= reference or when > reference + timedelta(days=366):
        return out
    return [replace(c, valid_from=when) if c.predicate in STARTING_PREDICATES and c.valid_from is None
            and c.op == "assert" else c for c in out]
