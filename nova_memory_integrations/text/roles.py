"""Chat roles: which are the user, which are machines, and which name a speaker.

A turn's role is either one of these generic roles or, in a multi-party transcript, the
speaker's name ("Caroline"); with a named role, first-person statements are about that
speaker, and retrieval treats the name as a query term. They sit in the text layer because
the extractors, consolidation and recall all read roles alike, and none may import the engine
for them.
"""

from __future__ import annotations

__all__ = ["GENERIC_ROLES", "MACHINE_ROLES", "USER_ROLES", "is_named_speaker"]

USER_ROLES = frozenset({"user", "human"})
"""Roles of the person the memory belongs to."""

MACHINE_ROLES = frozenset({"assistant", "ai", "system", "tool", "function", "bot", "model"})
"""Roles of the model and its tools: their turns state no facts about the user."""

GENERIC_ROLES = USER_ROLES | MACHINE_ROLES
"""Roles that are not a speaker's name."""


def is_named_speaker(role: str) -> bool:
    """Whether ``role`` is a speaker's name rather than a generic role (case-insensitive)."""
    return role.casefold() not in GENERIC_ROLES
