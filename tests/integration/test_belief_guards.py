"""What must never change a belief (issue #38): the guard layer through a real store.

Each case states something in a first turn (captured by the offline extractor), then says a second turn
that carries a change word but is not a change of the user's state. After ``consolidate()`` nothing the
first turn stored may be closed, in valid time or in history. The cases are grouped by the class of the
guard that must hold, in our own wording (other subjects, objects and word orders than any belief set),
so a rule written to one sentence fails here. Every case also checks that the first turn stored
something: a case with nothing to end could not fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)

CASES: dict[str, list[tuple[str, str]]] = {
    "negation": [
        ("I drive a VW Golf", "I didn't sell the Golf in the end, the buyer never showed up."),
        ("I work at Tesco on the tills", "Nobody's quitting anything, I'm still at Tesco, just grumbling about the rota."),
        ("I'm a member of the climbing club", "I never did leave the climbing club, despite all my moaning last winter."),
        ("my partner Ben and I have been together six years",
         "We haven't split up, we just had a massive row about the dishwasher."),
        ("I'm doing a part-time MA at Birkbeck", "Nearly dropped out of the MA last term, so glad I didn't."),
    ],
    "modality": [
        ("I ride a Triumph motorbike to work", "I might sell the Triumph if someone offers enough for it."),
        ("I live in Clifton", "If the rent goes up again we'll move out of Clifton for sure."),
        ("I subscribe to Netflix", "Thinking about cancelling Netflix, it's all reruns lately."),
        ("I work as a nurse at the Royal Infirmary", "I could see myself retiring from nursing in a year or two."),
        ("We rent an allotment by the canal", "Part of me wants to give up the allotment, the slugs are winning."),
        ("I smoke about five a day", "Trying to quit smoking again, day two, send help."),
        ("I work at the Co-op", "Imagine if I just walked out of the Co-op tomorrow, ha."),
    ],
    "question": [
        ("I play violin in the city orchestra", "Would I ever quit the orchestra? Probably not, I'd miss the pub after."),
        ("I work at Aldi on the night shift", "Should I leave Aldi for the warehouse job my cousin mentioned?"),
        ("We have a rabbit called Biscuit", "Is it mad to rehome Biscuit because of my allergies?"),
    ],
    "other people's news": [
        ("I drive a Tesla Model 3", "My colleague Dev sold his Tesla last week and bought an e-bike."),
        ("I work at Lidl in the bakery section", "My sister quit Lidl yesterday, says the hours were killing her."),
        ("my boyfriend Marcus is a chef", "Jess and Tom broke up, poor Jess is in bits."),
        ("I'm a member of the rowing club", "The rowing club's old coach quit, we've got a new one from Henley."),
        ("I work at Amazon in the warehouse", "My old boss at Amazon got sacked, karma."),
        ("I have a Labrador called Bruno", "Bruno's brother Max passed away, the breeder emailed us."),
        ("my girlfriend Amy lives with me in Derby", "Amy's dad finally retired from the police, big party on Saturday."),
        ("I work at Barclays in IT", "Barclays announced layoffs today, not in my team thank god."),
        ("I live in Bristol", "My brother moved out of Bristol last month, back to Cornwall."),
        ("I'm a member of a climbing wall", "My climbing partner quit, so I'm bouldering solo now."),
        ("I volunteer at the Oxfam shop on Saturdays", "The Oxfam shop manager retired this week, big send-off."),
        ("I'm a member of a choir", "Our choir's old conductor passed away, we sang at his funeral."),
    ],
    "the held value told again": [
        ("I work at the Co-op in Hebden Bridge", "Working at the Co-op is fine, the customers are lovely."),
        ("I'm vegetarian", "I've been vegetarian since 2010 and I'm not stopping now."),
        ("I work as a teacher", "I used to be a teacher's assistant before I qualified, now I teach Year 4."),
    ],
    "reminiscence": [
        ("I ride a Brompton to work", "Back in uni I sold my old bike to pay for textbooks, what a mistake."),
        ("I'm a member of PureGym", "When I was a student I quit the gym after a month, but this time feels different."),
        ("I live in Sheffield", "Ever since I moved to Sheffield I've wanted a dog."),
        ("I live in a houseboat in Oxford", "Used to live in a flat in Reading before the boat, never again."),
    ],
    "future": [
        ("I live in Leeds", "I'm moving to Glasgow in the spring, flat hunting already."),
        ("I work at Greggs", "Going to hand my notice in next month once I've saved a bit."),
        ("We own a flat in Hove", "We're selling the flat next year once the market picks up."),
        ("I'm a member of the climbing club", "Leaving the climbing club after the summer, my knees can't take it."),
    ],
    "quoted speech": [
        ("I work at Argos", 'My manager shouted "you\'re fired" at the printer and everyone laughed.'),
        ("I'm in the church choir", 'My son keeps yelling "I quit!" at his piano homework every evening.'),
    ],
    "joke": [
        ("my partner Ben and I have been together six years",
         "I'm going to murder Ben if he leaves the milk out again. divorcing him lol"),
        ("I work at a call centre in Cardiff", "honestly ready to throw the laptop out the window and quit life haha"),
        ("I have two kids", "selling the kids on eBay if they wake me at 5am again 😂"),
        ("I subscribe to Netflix", "dumping Netflix for a week of board games, jk we'd last a day"),
        ("my husband Raj and I live in Croydon", "Raj joked that he's leaving me for the dog, she gets more attention."),
    ],
    "dream": [
        ("I work at Deloitte", "Had a dream I quit Deloitte and moved to Lisbon, woke up weirdly sad."),
        ("We have a spaniel called Rufus", "Dreamt that Rufus ran away, I checked on him three times in the night."),
        ("I play the drums in a covers band", "The band broke up in my dream and I woke up panicking."),
    ],
    "pause": [
        ("I swim at the leisure centre pool every morning",
         "The leisure centre pool's closed for refurbishment until March so no laps for me."),
        ("I'm in a book club that meets monthly", "Taking a break from the book club over the summer while the kids are off."),
        ("I go running every morning", "Not running this week with my ankle, back at it on Monday hopefully."),
        ("I have guitar lessons on Thursdays", "Cancelled guitar lessons for August while we're away in Spain."),
        ("I have a cat called Milo", "Milo went missing for two days but he's back home now, the little sod."),
        ("I drive a Nissan Leaf", "The Leaf died on me this morning, flat battery, had to get a jump."),
        ("I play tennis at the club every Sunday", "Tennis is off till my elbow heals, physio says six weeks."),
        ("I'm a member of the gym on Canal Street", "Done with the gym for today, legs are jelly."),
        ("I work at Waitrose", "Worked my last shift before my holiday, two weeks in Crete!"),
        ("I'm learning Japanese", "Dropped my Japanese class to once a week instead of twice."),
        ("I go to a Pilates class on Mondays", "Pilates was cancelled this week because the instructor was ill."),
    ],
    "complaint about something still held": [
        ("I drive a Vauxhall Corsa", "The Corsa broke down AGAIN on the ring road, I swear this car hates me."),
        ("I work at a call centre in Swansea", "Work at the call centre is killing me, the targets are insane."),
        ("I rent a flat in Hackney", "Sick of this flat, the boiler's died twice since Christmas."),
        ("I go to a spin class at 7am", "So done with the 7am spin class but I keep dragging myself there."),
        ("I work at Tesco", "I'm so over this job, honestly, the new manager is a nightmare."),
    ],
    "considering selling": [
        ("We have an upright piano in the lounge", "Put the piano on Facebook Marketplace just to see what it'd fetch."),
        ("I drive a Ford Transit van", "Had the Transit valued today, might let it go if the price is right."),
        ("I drive a VW Golf", "Looking at what my Golf is worth these days, prices are wild."),
    ],
    "denial of a rumour": [
        ("I work at Deloitte", "No, I'm not leaving Deloitte, whoever started that rumour is wrong."),
        ("my partner Sam and I live together in Bath", "People keep asking if Sam and I split. We didn't, we're fine."),
        ("We own a little sailing boat", "Contrary to what my brother is telling everyone, I haven't sold the boat."),
        ("I work at Nando's as a shift manager", "My mate asked if I'd ever leave Nando's for his bar. Nah."),
    ],
    "someone else's thing of the same name": [
        ("I drive a VW Golf", "My dad sold his Golf yesterday, he's gone electric."),
        ("We have a cat called Luna", "Anna's cat Luna died last night, she's devastated."),
        ("I work at Google as a designer", "My friend Priya left Google this week for a startup."),
        ("I drive a Kia Picanto", "My neighbour's Kia got nicked last night, scary stuff."),
    ],
}


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[NovaStore]:
    """One real store (SQLite, Chroma, MiniLM) for the module: each case is its own user."""
    config = NovaConfig.model_validate({"consolidation": {"mode": "manual"}})
    store = NovaStore(Path(tmp_path_factory.mktemp("guards")) / "mem", embeddings=minilm_onnx, config=config)
    yield store
    store.close()


_PARAMS = [pytest.param(cls, first, second, id=f"{cls}-{i}") for cls, cases in CASES.items()
           for i, (first, second) in enumerate(cases)]


@pytest.mark.parametrize(("cls", "first", "second"), _PARAMS)
def test_a_turn_that_is_not_a_change_of_the_users_state_changes_nothing(
    shared_store: NovaStore, cls: str, first: str, second: str, request: pytest.FixtureRequest
) -> None:
    user = request.node.callspec.id
    shared_store.add_turn(user, "user", first, timestamp=T0, consolidation="manual")
    shared_store.consolidate(user)
    held = {(f.subject, f.predicate, f.object) for f in shared_store.facts(user)}
    assert held, f"the first turn stored nothing, the case cannot fail: {first!r}"
    shared_store.add_turn(user, "user", second, timestamp=T0 + timedelta(days=14), consolidation="manual")
    shared_store.consolidate(user)
    now = {(f.subject, f.predicate, f.object) for f in shared_store.facts(user, as_of=T0 + timedelta(days=20))}
    assert held <= now, f"{cls}: {second!r} ended {held - now}"
    closed = [f for f in shared_store.facts(user, include_history=True) if f.valid_to is not None]
    assert not closed, f"{cls}: {second!r} closed {[(f.predicate, f.object) for f in closed]}"


def test_every_class_of_the_guard_list_has_cases() -> None:
    assert len(_PARAMS) >= 40 and all(len(cases) >= 2 for cases in CASES.values())
