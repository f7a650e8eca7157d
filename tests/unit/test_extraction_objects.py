"""``extraction/_objects``: the cleaning of captured objects, one row per object kind.

Every kind a rule names must have its row (an unknown kind would silently be cleaned as
``plain``), and each row's fields (a leading "to" dropped, a list kept whole, a cut, the verb
checked before the article cut, a liked thing's "it") show on an example.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.extraction import deterministic
from nova_memory_integrations.extraction._endings import ENDING_KINDS
from nova_memory_integrations.extraction._frames import PASSING_RULES
from nova_memory_integrations.extraction._objects import _KINDS, clean_object
from nova_memory_integrations.extraction._rules import Field
from nova_memory_integrations.extraction._things import CAPTURE_KINDS


def test_every_kind_a_rule_names_has_its_cleaning() -> None:
    rules = (*deterministic._RULES, *deterministic._MY_RULES, *deterministic._START_RULES, *PASSING_RULES)
    kinds = {field.kind for rule in rules for field in rule.fields}
    assert kinds - set(_KINDS) - ENDING_KINDS - CAPTURE_KINDS == {"plain"}


def test_rule_fields_are_named() -> None:
    field = deterministic._RULES[-1].fields[0]
    assert isinstance(field, Field) and (field.predicate, field.op, field.kind) == ("owns", "assert", "plain")


@pytest.mark.parametrize(("raw", "kind", "expected"), [
    ("to travel to Japan next year", "verb", ["travel to Japan"]),  # "to" dropped, time phrase stripped
    ("My homework", "verb", []),  # a verb phrase, not a thing
    ("tea over coffee", "pref", ["tea"]),
    ("pizza, pasta and sushi", "things", ["pizza", "pasta", "sushi"]),  # a list kept whole, then split
    ("the first option", "thing", []),  # the conversation itself
    ("twenty five", "num", ["20"]),
    ("130", "num", []),
    ("a nurse at the hospital", "job", ["nurse"]),
    ("an optimist", "job", []),
    ("a startup called Nimbus", "org", ["Nimbus"]),
    ("Acme Corp in Berlin", "org", ["Acme Corp"]),
    ("Lisbon with my wife", "place", ["Lisbon"]),
    ("paris", "place", []),  # a place is capitalised
    ("the history of art which I love", "study", ["history of art"]),  # the relative clause cut
    ("Bob Marley", "name", ["Bob Marley"]),
    ("a red bike", "plain", ["red bike"]),
    ("a red bike", "no such kind", ["red bike"]),  # an unknown kind is plain
])
def test_each_kind_cleans_its_objects(raw: str, kind: str, expected: list[str]) -> None:
    assert clean_object(raw, kind) == expected


def test_a_lower_case_name_only_in_a_lower_case_sentence() -> None:
    assert clean_object("bob", "name") == [] and clean_object("bob", "name", lowercase=True) == ["bob"]


def test_it_is_the_last_liked_thing() -> None:
    assert clean_object("it", "things") == [] and clean_object("it", "things", last_obj="jazz") == ["jazz"]
    assert clean_object("it", "place", last_obj="jazz") == []  # only a liked thing refers back
