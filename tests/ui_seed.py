"""Two users' memory for the inspector's tests (tests/integration/test_ui_*.py).

alice: a belief change (favourite colour blue from 2024-01-10, green from 2024-06-01; Lisbon
then Berlin), a pinned block and a rule. bob: memory text that is HTML and script, in a
turn, a fact, a rule and a block, so every place the page shows memory is tried.
"""

from __future__ import annotations

from dataclasses import dataclass

from nova_memory_integrations import NovaStore

HOSTILE = '<script>window.pwned=1</script>"><img src=x onerror="window.pwned=2">'
ADMIN_KEY = "ui-admin-key-0123456789"
ALICE_KEY = "ui-alice-key-0123456789"
BOB_KEY = "ui-bob-key-0123456789abc"
KEYS = {ADMIN_KEY: None, ALICE_KEY: "alice", BOB_KEY: "bob"}
BOB_SECRET = "locker code 99317"


@dataclass(frozen=True)
class Seeded:
    blue_id: str
    green_id: str
    blue_episode: str


def seed(store: NovaStore) -> Seeded:
    store.add_turns([
        {"user_id": "alice", "role": "user", "content": "My favourite colour is blue.",
         "timestamp": "2024-01-10T09:00:00+00:00"},
        {"user_id": "alice", "role": "user", "content": "I live in Lisbon and I work at Acme.",
         "timestamp": "2024-01-11T09:00:00+00:00"},
    ])
    store.consolidate("alice")
    store.add_turns([
        {"user_id": "alice", "role": "user", "content": "My favourite colour is green now.",
         "timestamp": "2024-06-01T09:00:00+00:00"},
        {"user_id": "alice", "role": "user", "content": "I moved to Berlin.", "timestamp": "2024-06-02T09:00:00+00:00"},
    ])
    store.consolidate("alice")
    store.set_block("alice", "persona", "Prefers short answers.")
    store.add_rule("alice", "the user asks for a recipe", "suggest vegetarian dishes")
    store.add_turns([{"user_id": "bob", "role": "user", "content": f"My {BOB_SECRET}. {HOSTILE}",
                      "timestamp": "2024-02-01T09:00:00+00:00"}])
    store.add_fact("bob", "user", "likes", HOSTILE, valid_from="2024-02-01T09:00:00+00:00")
    store.add_rule("bob", HOSTILE, HOSTILE)
    store.set_block("bob", "persona", HOSTILE)
    history = store.facts("alice", "user", "favorite_color", include_history=True)
    blue = next(f for f in history if f.object == "blue")
    green = next(f for f in history if f.object == "green")
    return Seeded(blue.id, green.id, blue.provenance[0])
