"""A user's turns told to a real store, and what it then believes (integration tests of issue #38)."""

from __future__ import annotations

from datetime import datetime

from nova_memory_integrations import NovaStore

__all__ = ["held", "say"]


def say(store: NovaStore, text: str, at: datetime) -> None:
    """User ``u`` says ``text`` at ``at``; the store consolidates it at once."""
    store.add_turn("u", "user", text, timestamp=at)
    store.consolidate("u")


def held(store: NovaStore, subject: str, at: datetime, *words: str) -> list[str]:
    """The values ``subject`` holds as of ``at`` that contain any of ``words`` (case-insensitive), sorted."""
    return sorted(f.object for f in store.facts("u", as_of=at) if f.subject == subject
                  and any(w.lower() in f.object.lower() for w in words))
