"""``signals.asks``: whether a turn ends by asking (its reply then gets ``reply_weight``)."""

from __future__ import annotations

import pytest

from nova_memory_integrations.retrieval.signals import asks


@pytest.mark.parametrize("text", [
    "Got any tips on running a business?",
    "Jon: Great news. What helps you stay motivated?",
    "Any advice?  ",
    "Here it is. What do you think? [shares a photo: a flyer for a dance class]",
    "Is that yours? [shares a photo: a dog] [shares a photo: a ball]",
])
def test_a_turn_ending_in_a_question_asks(text: str) -> None:
    assert asks(text)


@pytest.mark.parametrize("text", [
    "Brand identity is key. Build relationships with your customers.",
    "What? No way, that's amazing.",  # a question that is not the last sentence
    "Look at this. [shares a photo: what is it?]",  # the question mark is the annotation's
    "Sure thing [?] okay",
    "",
])
def test_a_turn_not_ending_in_a_question_does_not_ask(text: str) -> None:
    assert not asks(text)
