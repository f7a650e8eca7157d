"""Pure rules of what a statement implies about other beliefs (memory/entailments.py)."""

from __future__ import annotations

import pytest

from nova_memory_integrations.memory.entailments import entailed_endings, needs, negation_targets


@pytest.mark.parametrize(
    ("negated", "held", "expected"),
    [
        ("Honda Civic", ["Honda Civic", "bike"], ["Honda Civic"]),
        ("car", ["Honda Civic"], ["Honda Civic"]),
        ("old car", ["Toyota Corolla"], ["Toyota Corolla"]),
        ("dog", ["dog named Rex", "cat named Tom"], ["dog named Rex"]),
        ("bike", ["mountain bike", "Honda Civic"], ["mountain bike"]),
        ("car", ["Honda Civic", "Tesla Model 3"], []),
        ("dog", ["dog named Rex", "dog named Fido"], []),
        ("car", ["piano"], []),
        ("boat", ["Honda Civic"], []),
        ("", ["Honda Civic"], []),
    ],
)
def test_negation_targets(negated: str, held: list[str], expected: list[str]) -> None:
    assert negation_targets(negated, held) == expected


def test_retiring_ends_work_and_title() -> None:
    held = {("user", "works_at"): ["Acme"], ("user", "job_title"): ["engineer"]}
    assert entailed_endings("user", "employment_status", "retired", held) == [
        ("user", "works_at", "Acme"), ("user", "job_title", "engineer")]


def test_losing_ones_job_ends_work() -> None:
    held = {("user", "works_at"): ["Acme"]}
    assert entailed_endings("user", "employment_status", "unemployed", held) == [("user", "works_at", "Acme")]


def test_working_again_ends_retirement() -> None:
    held = {("user", "employment_status"): ["retired"]}
    assert entailed_endings("user", "works_at", "Globex", held) == [("user", "employment_status", "retired")]


def test_working_again_keeps_other_statuses() -> None:
    held = {("user", "employment_status"): ["self-employed"]}
    assert entailed_endings("user", "works_at", "Globex", held) == []


def test_a_named_pets_death_ends_having_it() -> None:
    held = {("user", "has_pet"): ["dog named Rex", "cat named Tom"]}
    assert entailed_endings("rex", "life_status", "deceased", held) == [("user", "has_pet", "dog named Rex")]


def test_the_users_own_life_status_ends_no_pet() -> None:
    held = {("user", "has_pet"): ["dog named User"]}
    assert entailed_endings("user", "life_status", "deceased", held) == []


def test_other_statements_imply_nothing() -> None:
    assert entailed_endings("user", "lives_in", "Lisbon", {("user", "works_at"): ["Acme"]}) == []


@pytest.mark.parametrize(
    ("statement", "pairs"),
    [
        (("user", "employment_status", "Retired"), [("user", "works_at"), ("user", "job_title")]),
        (("user", "works_at", "Acme"), [("user", "employment_status")]),
        (("rex", "life_status", "deceased"), [("user", "has_pet")]),
        (("user", "lives_in", "Lisbon"), []),
    ],
)
def test_needs_names_what_the_rules_read(statement: tuple[str, str, str], pairs: list[tuple[str, str]]) -> None:
    assert needs(*statement) == pairs
