"""Entity keys and fuzzy matching: the pure functions behind entity resolution (no store).

Resolution on the real store is in ``tests/integration/test_entities.py``.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.memory.entities import entity_key, fuzzy_score


@pytest.mark.parametrize(
    ("name", "key"),
    [("Rust", "rust"), ("rust-lang", "rust"), ("the Rust language", "rust"), ("Rust programming language", "rust"),
     ("St. Mary's Hospital", "st marys hospital"), ("Acme Inc.", "acme"), ("C++", "c++"), ("language", "language")],
)
def test_entity_key(name: str, key: str) -> None:
    assert entity_key(name) == key


def test_fuzzy_matching_is_conservative() -> None:
    assert fuzzy_score("microsoft", "microsft", min_chars=6) >= 0.9  # a typo merges
    for a, b in [("paris", "parish"), ("lyon", "lille"), ("iphone 14", "iphone 15"), ("jon", "jonn"),
                 ("austria", "australia"), ("data analyst", "data scientist")]:
        assert fuzzy_score(a, b, min_chars=6) < 0.9, (a, b)
