"""Corrections told without "actually / I meant / sorry" (issue #38), read by structure (pure).

A correction asserts Y for a value the speaker holds as X and either refers to their own earlier saying
("I told you X", "I was kidding about X", "scratch that", "ignore what I said") or denies X by contrast
("a 6 not a 3", "Y! Not X."). Our own wording throughout; each mechanism has must-not-fire cases beside it:
someone else's earlier words, an aside that is not about the held value, a bare denial with nothing held.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=20)


def _facts(*rows: tuple[str, str, str]) -> list[Fact]:
    return [Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=s, predicate=p, object=o, confidence=0.8,
                 valid_from=T0, ingested_at=T0, provenance=(f"e{i}",)) for i, (s, p, o) in enumerate(rows)]


HELD = _facts(("user", "owns", "Peugeot 208"), ("user", "states", "choir practice on Thursdays"),
              ("user", "supports", "Hibs"), ("user", "plays", "trombone"), ("user", "diet", "vegan"),
              ("user", "has_pet", "greyhound named Pickle"), ("user", "states", "car Kia Rio"))


def _corrected(text: str, facts: list[Fact] = HELD) -> set[tuple[str, str]]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    return {(c.fact.fact.object, c.new_object) for c in plan.corrections}


@pytest.mark.parametrize(("text", "corrected"), [
    # a reference to the speaker's own earlier saying, with more words between X and the contrast
    ("I told you Thursdays for choir practice but it's Tuesdays, always has been.",
     {("choir practice on Thursdays", "choir practice on Tuesdays")}),
    ("Earlier I told you it was a Rio - it's a Kia Picanto, my head was all over the place.",
     {("car Kia Rio", "car Kia Picanto")}),
    ("I told you Thursdays for choir practice, it's Tuesdays.",
     {("choir practice on Thursdays", "choir practice on Tuesdays")}),
    # an echo question, then what was meant; "my bad" before Y
    ("Hibs? I meant Hearts.", {("Hibs", "Hearts")}),
    ("my bad, it's a Peugeot 308", {("Peugeot 208", "Peugeot 308")}),
    # an admission the earlier saying was not meant, then the speaker's state
    ("I was only kidding about Hibs 🙈 I'm Hearts, born and raised.", {("Hibs", "Hearts")}),
    # a contrast whose X is elided: the shared head comes from Y
    ("it's a Peugeot 308 not a 208, I always mix them up", {("Peugeot 208", "Peugeot 308")}),
    # Y, then a sentence that only denies X
    ("I play the tuba! Not trombone. Totally different mouthpiece.", {("trombone", "tuba")}),
    # a sentence that is only the name (maybe after an interjection), then one that only denies X
    ("Hearts! Not Hibs. Don't know what I was thinking.", {("Hibs", "Hearts")}),
    ("sorry, Hearts. not Hibs. same question though", {("Hibs", "Hearts")}),
    # a name against a denied one typed in lower case
    ("ugh autocorrect. the dog is called Pippa not pickle", {("greyhound named Pickle", "greyhound named Pippa")}),
    # a strong cue with the new state after it and X named elsewhere in the window
    ("Scratch that - I'm vegetarian. Vegan is my flatmate.", {("vegan", "vegetarian")}),
    # a discourse word at the end of Y, and a name introduced by "called"
    ("her name is Pippa by the way, not Pickle", {("greyhound named Pickle", "greyhound named Pippa")}),
    ("the dog is called Pippa, not Pickle", {("greyhound named Pickle", "greyhound named Pippa")}),
])
def test_a_correction_without_a_cue_word_is_read_by_structure(text: str, corrected: set[tuple[str, str]]) -> None:
    assert _corrected(text) == corrected


@pytest.mark.parametrize("text", [
    # someone else's earlier saying: their fact, not a retraction of the user's
    "My sister said Thursdays for choir practice but it's Tuesdays for her lot.",
    # an aside about something else after the reference ("my head was ..."), no value of the held fact
    "I told you about the Rio - my head was fried that week.",
    # a bare denial with nothing held of that name
    "I play the tuba! Not the bagpipes, thank god.",
    # a past narrative before a bare denial: not a present state of the speaker's
    "Went to see the trombone section at the Proms. Not trombone, actually, trumpets.",
    # kidding about something the store does not hold
    "I was kidding about the marathon, I'm lazy as anything.",
    # "I told you ..., it's ..." about no held value
    "I told you I'd be late, it's raining cats and dogs.",
    # a contrast that is not copular and holds nothing
    "Got the 9:15 not the 8:40 this morning.",
    # a name alone, then a denial of something the store does not hold
    "Hearts! Not the bagpipes, thank god.",
])
def test_what_is_not_a_correction_of_a_held_value_corrects_nothing(text: str) -> None:
    assert _corrected(text) == set()


@pytest.mark.parametrize(("text", "corrected"), [
    # both names lower case, a "not" contrast beside a sure cue in another sentence
    ("euphonium*** not trombone, only just noticed. autocorrect.", {("trombone", "euphonium")}),
    # an echo question of six words, then the value
    ("wait did I say trombone? it's euphonium, autocorrect keeps changing it.", {("trombone", "euphonium")}),
    # the speaker noticing what they typed, the value told in the next sentence
    ("omg I just noticed I typed Hibs. it's Hearts, please don't tell my dad.", {("Hibs", "Hearts")}),
    # a time word before "not" is no value
    ("ugh I meant Hearts earlier not Hibs, Hibs was my dad's team.", {("Hibs", "Hearts")}),
])
def test_lower_case_contrasts_echoes_and_noticed_typing_correct(text: str, corrected: set[tuple[str, str]]) -> None:
    assert _corrected(text) == corrected
