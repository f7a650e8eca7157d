"""The inspector's sign-in sessions and who a key may list (server/ui/access.py): pure, no server."""

from __future__ import annotations

import pytest

from nova_memory_integrations.server.auth import Principal
from nova_memory_integrations.server.ui.access import UiSessions, visible_users


def test_a_session_gives_back_its_key_until_closed_or_expired() -> None:
    sessions = UiSessions()
    token = sessions.open("key-one-0123456789")
    assert token != "key-one-0123456789" and len(token) >= 40
    assert sessions.key(token) == "key-one-0123456789"
    assert sessions.key(None) is None and sessions.key("") is None and sessions.key("guess") is None
    sessions.close(token)
    assert sessions.key(token) is None
    expired = UiSessions(ttl=-1.0)
    assert expired.key(expired.open("key-two-0123456789")) is None


def test_sessions_are_bounded_the_oldest_going_first() -> None:
    sessions = UiSessions(limit=2)
    first, second, third = (sessions.open(f"key-{i}-0123456789") for i in range(3))
    assert sessions.key(first) is None
    assert sessions.key(second) == "key-1-0123456789" and sessions.key(third) == "key-2-0123456789"


@pytest.mark.parametrize(("principal", "listed"), [
    (Principal(), ["alice", "bob"]),
    (Principal(pinned_user=None, authenticated=True), ["alice", "bob"]),
    (Principal(pinned_user="alice", authenticated=True), ["alice"]),
    (Principal(pinned_user="carol", authenticated=True), ["carol"]),
])
def test_a_pinned_key_lists_its_own_user_only(principal: Principal, listed: list[str]) -> None:
    assert visible_users(principal, ["alice", "bob"]) == listed
