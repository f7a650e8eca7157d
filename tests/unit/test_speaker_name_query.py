"""The dense query leaves out the name of the one speaker it names (pure function, no store)."""

from __future__ import annotations

from nova_memory_integrations.retrieval.signals import without_speaker_name

ROLES = {"Tim", "John", "user", "assistant", "Mary Ann"}


def test_the_named_speaker_is_left_out() -> None:
    assert without_speaker_name("Which cities has Tim visited?", ROLES) == "Which cities has visited?"


def test_a_possessive_goes_with_the_name() -> None:
    assert without_speaker_name("What is Tim's favourite book?", ROLES) == "What is favourite book?"


def test_a_typographic_possessive_goes_with_the_name() -> None:
    assert without_speaker_name("What is Tim’s favourite book?", ROLES) == "What is favourite book?"


def test_the_name_is_matched_whatever_its_case() -> None:
    assert without_speaker_name("what did TIM cook", ROLES) == "what did cook"


def test_every_word_of_a_two_word_name_goes() -> None:
    assert without_speaker_name("Where did Mary Ann travel?", ROLES) == "Where did travel?"


def test_a_query_naming_two_speakers_is_kept() -> None:
    assert without_speaker_name("What do Tim and John share?", ROLES) == "What do Tim and John share?"


def test_a_query_naming_no_speaker_is_kept() -> None:
    assert without_speaker_name("Which cities were visited?", ROLES) == "Which cities were visited?"


def test_a_generic_role_is_not_a_name() -> None:
    assert without_speaker_name("What did the user cook?", ROLES) == "What did the user cook?"


def test_a_longer_word_holding_the_name_is_kept() -> None:
    assert without_speaker_name("What did Timothy cook?", ROLES) == "What did Timothy cook?"


def test_a_query_of_the_name_alone_is_kept() -> None:
    assert without_speaker_name("Tim?", ROLES) == "Tim?"


def test_a_query_of_the_name_and_stopwords_is_kept() -> None:
    assert without_speaker_name("What about Tim?", ROLES) == "What about Tim?"


def test_only_the_roles_given_count() -> None:
    assert without_speaker_name("Which cities has Tim visited?", {"John"}) == "Which cities has Tim visited?"
