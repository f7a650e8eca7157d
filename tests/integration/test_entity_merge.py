"""After an entity merge, the merged name and its aliases resolve to the kept entity."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.errors import InvalidInputError
from nova_memory_integrations.maintenance.entity_merge import merge_entities

AT = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def merged(store: NovaStore) -> NovaStore:
    for user in ("erin", "frank"):
        store.add_fact(user, "Widgets Ltd", "owned_by", "Zeta", valid_from=AT)
    store.add_fact("erin", "Acme Corp", "owned_by", "Zeta", valid_from=AT)
    store.components.entities.add_alias("erin", "Widgets Ltd", "WL")
    merge_entities(store.components, "erin", "Acme Corp", "Widgets Ltd")
    return store


def test_the_merged_name_resolves_to_the_kept_entity(merged: NovaStore) -> None:
    assert merged.components.entities.canonical("erin", "Widgets Ltd") == "Acme Corp"


def test_an_alias_of_the_merged_entity_resolves_to_the_kept_entity(merged: NovaStore) -> None:
    assert merged.components.entities.canonical("erin", "WL") == "Acme Corp"


def test_the_merged_entity_is_gone_from_the_list(merged: NovaStore) -> None:
    names = {e.name for e in merged.components.entities.list_entities("erin")}
    assert "Widgets Ltd" not in names


def test_the_kept_entity_lists_the_merged_aliases(merged: NovaStore) -> None:
    kept = next(e for e in merged.components.entities.list_entities("erin") if e.name == "Acme Corp")
    assert {"widgets ltd", "wl"} <= set(kept.aliases)


def test_a_new_fact_naming_the_merged_entity_lands_on_the_kept_one(merged: NovaStore) -> None:
    merged.add_fact("erin", "Widgets Ltd", "based_in", "Leeds", valid_from=AT)
    subjects = {f.subject for f in merged.facts("erin", predicate="based_in")}
    assert subjects == {"acme corp"}


def test_the_merge_survives_a_reopen(merged: NovaStore) -> None:
    merged.components.entities.invalidate(None)
    assert merged.components.entities.canonical("erin", "Widgets Ltd") == "Acme Corp"


def test_merging_again_says_they_are_the_same_entity(merged: NovaStore) -> None:
    with pytest.raises(InvalidInputError, match="same entity"):
        merge_entities(merged.components, "erin", "Acme Corp", "Widgets Ltd")


def test_another_users_entity_of_that_name_is_untouched(merged: NovaStore) -> None:
    assert merged.components.entities.canonical("frank", "Widgets Ltd") == "Widgets Ltd"
