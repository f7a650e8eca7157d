"""Standing instructions about replies (``text/instructions.py``): read in the user's own words,
never in a question, someone else's wish, a one-off about some content, or a negation."""

from __future__ import annotations

import pytest

from nova_memory_integrations.text.instructions import INSTRUCTIONS, instructions_in


@pytest.mark.parametrize("text, key", [
    ("Use bullet points please.", "bullets"),
    ("Could you put it in bullet points?", "bullets"),
    ("From now on, format your answers as bullet points.", "bullets"),
    ("Bullet points please, it's easier to skim.", "bullets"),
    ("I prefer bullet points.", "bullets"),
    ("Keep it short.", "short"),
    ("shorter pls", "short"),
    ("That was way too long.", "short"),
    ("Be more concise!", "short"),
    ("I'd prefer short answers.", "short"),
    ("Thanks. Keep your replies brief next time because I read on my phone.", "short"),
    ("No emojis please.", "no_emoji"),
    ("Stop using emojis.", "no_emoji"),
    ("Please don't use emojis in your replies.", "no_emoji"),
    ("Use metric units.", "metric"),
    ("In celsius please.", "metric"),
])
def test_instructions_in_the_users_words(text: str, key: str) -> None:
    assert instructions_in(text) == [key]


@pytest.mark.parametrize("text", [
    "My manager wants me to keep it short.",
    "Should I use bullet points in my resume?",
    "Could you tell me what bullet points are?",
    "Use bullet points for the slide about Q3 revenue.",
    "Keep it short and sweet for the toast, I need a speech for Friday.",
    "Don't keep it short.",
    "The meeting was too long.",
    "I keep my hair short as it is hot.",
    "I love emojis!",
    "The trail was 5 km long.",
    "",
])
def test_not_instructions(text: str) -> None:
    assert instructions_in(text) == []


def test_two_in_one_turn_in_table_order_and_keys_unique() -> None:
    assert instructions_in("No emojis. Keep it short.") == ["short", "no_emoji"]
    assert len({i.key for i in INSTRUCTIONS}) == len(INSTRUCTIONS)
