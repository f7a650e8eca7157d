"""The change planner on its own (pure): cues, guards, targets, corrections (issue #38).

Each case is a message and the user's facts current at its time; the planner must end exactly the
facts listed (by object), or nothing. Phrasings were chosen to exercise each mechanism generally
(the thing as the subject, a pronoun, an idiom, a noun, a third party, a change amid other news),
not copied from the belief sets.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from change_helpers import T0, held_fact

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.planner import pending
from nova_memory_integrations.types import Fact

AT = T0 + timedelta(days=60)


FACTS = [held_fact(i, *t) for i, t in enumerate([
    ("user", "owns", "Ford Focus"), ("user", "works_at", "Tesco"), ("user", "job_title", "cashier"),
    ("user", "lives_in", "Leeds"), ("user", "has_pet", "dog named Rex"), ("user", "girlfriend_name", "Amy"),
    ("amy", "partner_of", "user"), ("user", "member_of", "Pure Gym"), ("user", "habit", "smoking"),
    ("user", "sister_name", "Kate"), ("kate", "sibling_of", "user"), ("kate", "works_at", "Boots"),
    ("kate", "owns", "Vauxhall Corsa"), ("user", "studies_at", "Leeds Uni"), ("user", "uses", "Spotify"),
])]


def _ended(text: str, facts: list[Fact] = FACTS) -> set[str]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    assert not plan.corrections, plan.corrections
    return {f"{e.fact.subject}:{e.fact.object}" for e in plan.endings}


@pytest.mark.parametrize(("text", "ended"), [
    # the thing as the subject, a definite description, a pronoun with its antecedent
    ("The Focus got stolen from the car park.", {"user:Ford Focus"}),
    ("The car's gone, sold it to my neighbour.", {"user:Ford Focus"}),
    ("Long story. Made my mind up about the Focus. Sold it to a dealer on Saturday.", {"user:Ford Focus"}),
    # idioms and nouns
    ("Amy and I called it quits last week.", {"user:Amy", "amy:user"}),
    ("Amy and I aren't together anymore.", {"user:Amy", "amy:user"}),
    ("Since the breakup I've been sleeping on a friend's sofa.", {"user:Amy", "amy:user"}),
    ("Tesco let me go this morning.", {"user:Tesco"}),
    ("Today was my final shift at Tesco!", {"user:Tesco"}),
    ("Work's been mental, anyway I'm no longer at Tesco so who cares.", {"user:Tesco"}),
    ("Rex passed away last night.", {"user:dog named Rex"}),
    ("I haven't smoked since new year!", {"user:smoking"}),
    ("I'm not a smoker any more.", {"user:smoking"}),
    ("We finally moved out of Leeds!", {"user:Leeds"}),
    ("I dropped out of uni in March.", {"user:Leeds Uni"}),
    ("Cancelled Spotify, using YouTube Music now.", {"user:Spotify"}),
    # the change in the middle of other news
    ("Busy week: boiler fixed, mum visited, and I cancelled my gym membership. Anyway, pasta recipes?",
     {"user:Pure Gym"}),
    # a third party's news ends their facts, never the user's
    ("Kate quit Boots last week.", {"kate:Boots"}),
    ("My sister sold her Corsa.", {"kate:Vauxhall Corsa"}),
    ("My friend sold his car.", set()),
    ("My neighbour's dog died and Rex keeps sniffing at the fence.", set()),
    ("my boss quit today, chaos.", set()),
    # guards: question, negation, modality, future, reminiscence, reported and quoted speech
    ("Should I cancel my gym membership?", set()),
    ("Is it mad that I'm thinking of quitting Tesco?", set()),
    ("I didn't sell the Focus in the end.", set()),
    ("No, Amy and I didn't break up, people just assumed.", set()),
    ("If I sold the Focus I could afford a holiday.", set()),
    ("Thinking about quitting smoking.", set()),
    ("talk me out of cancelling the gym lol", set()),
    ("I'm moving out of Leeds in the summer.", set()),
    ("Handed in my notice at Tesco today, four weeks to go.", set()),
    ("My last day at Tesco is Friday, can't wait.", set()),
    ("my first car was a Fiesta, sold it after a year", set()),
    ("Back in school I quit the swim team.", set()),
    ("The doctor says my smoking days are over.", set()),
    ("She said 'I quit' and walked off, my sister is so dramatic.", set()),
    # a destination is the new state, never the ended one
    ("I moved to Leeds last month.", set()),
])
def test_the_planner_ends_what_the_message_ends(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


def test_an_ending_is_dated_at_the_clause_time_with_its_cue() -> None:
    (ending,) = plan_changes("Carla and I broke up in June.", at=datetime(2025, 8, 3, tzinfo=timezone.utc),
                             episode_id="now", facts=[held_fact(0, "user", "partner_name", "Carla")]).endings
    assert ending.at == datetime(2025, 6, 1, tzinfo=timezone.utc)
    assert "cue 'broke up'" in ending.reason and "name 1.00" in ending.reason


def test_facts_first_stated_by_the_message_itself_are_never_ended() -> None:
    new = Fact(id="n", lineage_id="n", user_id="u", subject="user", predicate="member_of", object="Ironside",
               confidence=0.8, valid_from=AT, ingested_at=AT, provenance=("now",))
    assert _ended("I left Ironside.", [new]) == set()


def test_the_only_state_of_a_specific_category_is_ended_by_a_noun() -> None:
    facts = [held_fact(0, "user", "works_at", "Zillow"), held_fact(1, "user", "likes", "jazz")]
    assert _ended("So I was part of the January layoffs. Weirdly calm.", facts) == {"user:Zillow"}
    two_jobs = [*facts, held_fact(2, "user", "works_at", "Uber")]
    assert _ended("So I was part of the January layoffs. Weirdly calm.", two_jobs) == set()  # which one?


def test_leaving_an_employer_keeps_the_role_retiring_ends_both() -> None:
    job = [held_fact(0, "user", "works_at", "Boots"), held_fact(0, "user", "job_title", "pharmacist")]
    job[1] = job[1].model_copy(update={"id": "g", "lineage_id": "g"})  # same episode: one state
    assert _ended("Left Boots on Friday.", job) == {"user:Boots"}
    assert _ended("First week of retirement, bored already.", job) == {"user:Boots", "user:pharmacist"}


def test_a_pronoun_finds_the_person_named_before_else_the_most_recent_one() -> None:
    facts = [held_fact(0, "user", "sister_name", "Kate"), held_fact(1, "kate", "works_at", "Lidl")]
    assert _ended("She hates it and quit already lol.", facts) == {"kate:Lidl"}
    assert _ended("My brother came round. He quit yesterday.", facts) == set()  # "he" is not Kate


def test_meaning_decides_only_when_asked_and_only_among_candidates() -> None:
    calls: list[tuple[str, list[str]]] = []

    def similarity(clause: str, texts: list[str]) -> list[float]:
        calls.append((clause, list(texts)))
        return [0.9 if "espresso" in t else 0.1 for t in texts]

    facts = [held_fact(0, "user", "habit", "double espresso"), held_fact(1, "user", "habit", "evening run")]
    plan = plan_changes("cut out caffeine completely a month ago", at=AT, episode_id="now", facts=facts,
                        similarity=similarity)
    assert [e.fact.object for e in plan.endings] == ["double espresso"] and plan.embedded
    assert len(calls) == 1 and sorted(calls[0][1]) == ["I habit double espresso", "I habit evening run"]
    calls.clear()
    plan_changes("Left Tesco.", at=AT, episode_id="now", facts=FACTS, similarity=similarity)
    assert calls == []  # named: nothing to embed


def test_pending_skips_messages_without_cues_and_sentences_the_extractor_handled() -> None:
    assert not pending("I love hiking and my favourite colour is blue.")
    assert pending("I sold the boat.")
    assert not pending("I no longer work at Acme.", handled=["I no longer work at Acme."])
    assert pending("I no longer work at Acme. Sold the boat too.", handled=["I no longer work at Acme."])
    assert pending("Sorry, I meant Lyon, not Paris.", handled=["Sorry, I meant Lyon, not Paris."])  # corrections


@pytest.mark.parametrize(("text", "old", "new"), [
    ("Oh wait — I said Paris the other day. I actually moved to Lyon, not Paris.", "Paris", "Lyon"),
    ("Correction from last time: it's a Kia Ceed, not a Hyundai i30.", "Hyundai i30", "Kia Ceed"),
    ("Quick fix: it's Snap Fitness, not Anytime. Both 24/7 places.", "Anytime Fitness", "Snap Fitness"),
    ("small thing, I said Kingsmead before but it's Kingsway Academy. autocorrect.", "Kingsmead Academy",
     "Kingsway Academy"),
    ("lol I just noticed I wrote Chloe last time, her name's Zoe.", "Chloe", "Zoe"),
    ("correction, it's Bolt I drive for, not Uber.", "Uber", "Bolt"),
    ("Tiny correction: viola, not violin.", "violin", "viola"),
    ("Oops, I said Bristol but I live in Bath actually.", "Bristol", "Bath"),
])
def test_a_correction_names_the_old_value_and_the_new_one(text: str, old: str, new: str) -> None:
    facts = [held_fact(0, "user", "lives_in" if old in ("Paris", "Bristol") else "owns", old),
             held_fact(1, "user", "likes", "jazz")]
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    assert [(c.fact.fact.object, c.new_object) for c in plan.corrections] == [(old, new)]
    assert plan.endings == ()  # a correction's sentences are never read as endings


@pytest.mark.parametrize("text", [
    "I'm not a smoker any more.",  # a negation, not a contrast
    "Actually, I quite like Paris.",  # a cue without an old and a new value
    "I want tea, not coffee.",  # a contrast without a correction cue nor a copula
])
def test_what_is_not_a_correction(text: str) -> None:
    facts = [held_fact(0, "user", "lives_in", "Paris"), held_fact(1, "user", "habit", "smoking"),
             held_fact(2, "user", "likes", "coffee")]
    assert plan_changes(text, at=AT, episode_id="now", facts=facts).corrections == ()


def test_a_statement_before_a_question_in_one_sentence_still_counts() -> None:
    assert _ended("Sold the Focus last week, so what should I get next?") == {"user:Ford Focus"}
    assert _ended("should I sell the Focus and just get a bike?") == set()
    assert _ended("Is it weird that I quit Tesco without a plan?") == set()


def test_someone_elses_words_earlier_in_a_long_message_do_not_silence_the_user() -> None:
    assert _ended("Mum says hi. Also I sold the Focus on Saturday.") == {"user:Ford Focus"}
    assert _ended("My mechanic says the Focus is done for, so I guess it's over.") == set()


@pytest.mark.parametrize("text", [
    "I cancelled the dentist appointment, can't face it.",  # about the dentist, not the only membership
    "my ex texted me out of nowhere last night",  # an ex is not the current partner
    "I dropped the kids at school and went for a run.",
    "Sold my old guitar on eBay for 80 quid.",  # a thing never stated: not the only possession
    "switched to oat milk, way better",
    "Quit the choir, too much drama.",  # a choir never stated: not the only membership
])
def test_a_cue_about_something_unknown_ends_nothing(text: str) -> None:
    few = [held_fact(0, "user", "member_of", "Pure Gym"), held_fact(1, "user", "girlfriend_name", "Amy"),
           held_fact(2, "user", "owns", "Ford Focus")]
    assert _ended(text, few) == set()


def test_the_buyer_or_the_new_state_is_never_the_ended_one() -> None:
    facts = [held_fact(0, "user", "owns", "Triumph Bonneville"), held_fact(1, "user", "works_at", "Leeds Council")]
    assert _ended("Bonnie's gone. Sold her to a lad from Leeds last weekend.", facts) == {"user:Triumph Bonneville"}
    moved = [held_fact(0, "user", "lives_in", "York"), held_fact(1, "user", "works_at", "Leeds Council")]
    assert _ended("moved to Leeds from York in May", moved) == {"user:York"}
    assert _ended("switched to Leeds Council, way better", moved) == set()


def test_a_move_the_store_kept_as_history_ends_nothing_current() -> None:
    """"I moved to Nairobi last month" while a home stated since is held: the extractor kept Nairobi as
    history (it is older), so the newer home stays."""
    newer = held_fact(0, "user", "lives_in", "Berlin").model_copy(update={"valid_from": AT - timedelta(days=10)})
    older = Fact(id="n", lineage_id="n", user_id="u", subject="user", predicate="lives_in", object="Nairobi",
                 confidence=0.8, valid_from=AT - timedelta(days=30), valid_to=AT - timedelta(days=10), ingested_at=AT,
                 provenance=("now",))
    plan = plan_changes("I moved to Nairobi last month.", at=AT, episode_id="now", facts=[newer, older])
    assert plan.endings == () and [g.guard for g in plan.guarded] == ["older"]
    assert _ended("I moved to Nairobi last month.", [newer]) == {"user:Berlin"}


def test_a_move_to_the_home_already_held_changes_nothing() -> None:
    both = [held_fact(0, "user", "lives_in", "Leeds"), held_fact(1, "user", "lives_in", "York")]
    assert _ended("I moved to Leeds last month.", both) == set()


def test_the_actors_own_name_is_not_what_ended() -> None:
    facts = [held_fact(0, "user", "boyfriend_name", "Jake"), held_fact(1, "jake", "partner_of", "user")]
    assert _ended("Jake's mum died last week.", facts) == set()
    assert _ended("Jake left early for the match.", facts) == set()
    assert _ended("Jake broke up with me on Sunday.", facts) == {"user:Jake", "jake:user"}


@pytest.mark.parametrize(("text", "old", "new"), [
    ("I typed Glasgow but I meant Edinburgh, sorry!", "Glasgow", "Edinburgh"),
    ("Sorry, it's Jack not Jake — autocorrect!", "Jake", "Jack"),
])
def test_more_corrections(text: str, old: str, new: str) -> None:
    facts = [held_fact(0, "user", "lives_in", "Glasgow"), held_fact(1, "user", "boyfriend_name", "Jake"),
             held_fact(2, "jake", "partner_of", "user")]
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    assert [(c.fact.fact.object, c.new_object) for c in plan.corrections] == [(old, new)]


def test_an_ending_dated_long_before_a_state_began_is_of_something_earlier() -> None:
    """"my first car was a Micra ... sold it for £200 in 2006" ends no car held since 2024 (issue #38)."""
    from datetime import datetime, timezone

    from nova_memory_integrations.changes import plan_changes
    from nova_memory_integrations.types import Fact

    t0 = datetime(2024, 4, 20, tzinfo=timezone.utc)
    held = [Fact(id="f", lineage_id="f", user_id="u", subject="user", predicate="owns", object="Honda Jazz",
                 confidence=0.8, valid_from=t0, ingested_at=t0, provenance=("e",))]
    at = datetime(2024, 6, 3, tzinfo=timezone.utc)
    earlier = plan_changes("ha my first car was a Nissan Micra. sold it for £200 in 2006. anyway, the Jazz is fine",
                           at=at, episode_id="now", facts=held)
    assert earlier.endings == ()
    now = plan_changes("sold it last week, the Jazz had to go", at=at, episode_id="now", facts=held)
    assert [e.fact.id for e in now.endings] == ["f"]


def test_a_kinship_word_names_the_relative_as_the_rules_spell_them() -> None:
    """"Mum retired" ends what the store holds of "mom" (the extractor's spelling), not of a "mum" it never had."""
    from datetime import datetime, timezone

    from nova_memory_integrations.changes import plan_changes
    from nova_memory_integrations.types import Fact

    t0 = datetime(2023, 3, 12, tzinfo=timezone.utc)
    held = [Fact(id="f", lineage_id="f", user_id="u", subject="mom", predicate="works_at", object="Boots",
                 confidence=0.8, valid_from=t0, ingested_at=t0, provenance=("e",))]
    plan = plan_changes("Mum finished at Boots yesterday, retired! She's going to learn to paint.",
                        at=datetime(2023, 9, 30, tzinfo=timezone.utc), episode_id="now", facts=held)
    assert [(e.fact.subject, e.fact.object) for e in plan.endings] == [("mom", "Boots")]


def test_a_negated_cue_names_what_ended_never_a_new_state() -> None:
    """"not with X any more": X is what ended, not where she went (issue #38)."""
    facts = [*FACTS, held_fact(90, "wife", "works_at", "the NHS"), held_fact(91, "wife", "job_title", "radiographer")]
    assert "wife:the NHS" in _ended("good news, my wife is not with the NHS any more", facts)
    assert "kate:Boots" in _ended("Kate's no longer with Boots, she was fed up", facts)


def test_a_lower_case_word_after_a_relation_is_no_name() -> None:
    """"my husband has resigned": "has" is not the husband's name (issue #38)."""
    facts = [*FACTS, held_fact(93, "husband", "member_of", "Royal Lytham")]
    assert _ended("my husband has resigned his membership at Lytham", facts) == {"husband:Royal Lytham"}


def test_a_possessive_her_before_a_noun_names_no_one_that_ended() -> None:
    """"Amy finished her course": "her" is Amy's, the course ended, not the relationship (issue #38)."""
    assert not {"user:Amy", "amy:user"} & _ended("Amy finished her retraining in the summer and loves it.")
    assert {"user:Amy", "amy:user"} <= _ended("I dumped her last week, Amy that is.")


def test_two_people_as_one_subject_end_their_relationship() -> None:
    """"chloe and liam are finished": Chloe's relationship with Liam, told lower case (issue #38)."""
    facts = [*FACTS, held_fact(94, "chloe", "states", "boyfriend Liam"), held_fact(95, "user", "daughter_name", "Chloe"),
             held_fact(96, "chloe", "child_of", "user")]
    assert _ended("chloe and liam are finished, she's been crying all weekend", facts) == {"chloe:boyfriend Liam"}


@pytest.mark.parametrize(("text", "ended"), [
    # an object between a verb and its particle
    ("We had to put Rex down on Tuesday, his kidneys were failing.", {"user:dog named Rex"}),
    ("Insurance have written the Focus off and paid out.", {"user:Ford Focus"}),
    # a day as the subject is when, not who; a time ahead in another part of the sentence plans something else
    ("Flat's a mess, my sister's visiting next week, and Friday was my last day at Tesco so I've got two weeks off.",
     {"user:Tesco"}),
])
def test_objects_inside_cues_times_as_subjects_and_the_speaker_as_object(text: str, ended: set[str]) -> None:
    assert ended <= _ended(text)


@pytest.mark.parametrize("text", ["I put my name down for the pottery course.", "Put Amy down for the Saturday rota.",
                                  "put the kettle on and sat down for a bit"])
def test_putting_down_what_is_no_animal_ends_nothing(text: str) -> None:
    assert _ended(text) == set()


def test_a_cue_done_to_the_speaker_by_someone_unnamed_is_the_speakers() -> None:
    """"they let me go": the user's one job ended, though "they" acts (issue #38)."""
    facts = [held_fact(97, "user", "works_at", "amazon warehouse"), held_fact(98, "user", "lives_in", "Leeds")]
    assert _ended("they let me go yesterday, no warning, just restructuring", facts) == {"user:amazon warehouse"}


def test_an_engagement_told_off_ends_it() -> None:
    """"The engagement's off": a noun cue of the relationship (issue #38)."""
    facts = [held_fact(99, "user", "fiancé_name", "Marcus"), held_fact(100, "marcus", "partner_of", "user")]
    assert _ended("The engagement's off. He moved his stuff out at the weekend.", facts) == {"user:Marcus",
                                                                                         "marcus:user"}


@pytest.mark.parametrize("text", [
    "Kate from my team just quit Tesco to go freelance. Bit jealous, but I'm staying put.",  # a colleague's news
    "the Pure Gym match has been cancelled because of the storm, gutted",  # one occasion, not the membership
    "well the focus died on the M6 this morning. they reckon it's the clutch, getting it fixed on Monday",  # a fault
])
def test_an_acquaintance_an_occasion_or_a_repair_ends_nothing_of_the_users(text: str) -> None:
    assert not {e for e in _ended(text) if e.startswith("user:")}


def test_a_lease_renewed_or_a_stay_goes_on() -> None:
    """"Our lease is up in March but we've signed on for another year": the home goes on (issue #38)."""
    assert _ended("Our lease is up in March but we've already signed on for another year at the Leeds place.") == set()
    assert _ended("Went in to cancel Pure Gym and they offered me 40% off, so I'm staying.") == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("So I've given up on Spotify, the adverts were unbearable.", {"user:Spotify"}),  # what it names
    ("Tore up my Pure Gym card last month, never went anyway.", {"user:Pure Gym"}),
])
def test_giving_up_on_and_tearing_up_a_card_end_what_they_name(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


def test_giving_up_on_something_unnamed_ends_nothing() -> None:
    assert _ended("I've given up on finding a parking space near the office.") == set()


def test_a_word_said_for_effect_before_a_question_mark_leaves_a_statement() -> None:
    """"ditched Spotify, on YouTube Music now and honestly?": told, not asked (issue #38)."""
    assert "user:Spotify" in _ended("finally ditched Spotify, on YouTube Music now and honestly? not missing it.")


@pytest.mark.parametrize(("text", "facts", "ended"), [
    ("Update: we closed the doors at The Daily Grind for the last time on Sunday.",
     [("user", "owns", "café named Daily Grind")], {"user:café named Daily Grind"}),
    ("Friday was my last round. 31 years! They gave me a cake.", [("user", "states", "postie with Royal Mail")],
     {"user:postie with Royal Mail"}),
])
def test_a_business_closed_for_good_and_a_last_round_end_them(text: str, facts: list[tuple[str, str, str]],
                                                               ended: set[str]) -> None:
    assert _ended(text, [held_fact(200 + i, *t) for i, t in enumerate(facts)]) == ended


def test_my_last_round_told_as_the_latest_one_ends_nothing() -> None:
    assert _ended("My last round was 94, the slice is killing me.", [held_fact(210, "user", "hobby", "golf")]) == set()


def test_being_off_a_named_medication_ends_it_and_off_to_somewhere_ends_nothing() -> None:
    facts = [held_fact(220, "user", "takes_medication", "50mg sertraline"), held_fact(221, "user", "works_at", "Tesco")]
    assert _ended("as of last week I'm completely off the sertraline. GP's happy.", facts) == {"user:50mg sertraline"}
    assert _ended("I'm off to the shops, then work at Tesco later.", facts) == set()


@pytest.mark.parametrize(("text", "facts", "ended"), [
    # what goes on is the object after "still got", the subject before "is still" or "survives"
    ("sold my strat to pay for the holiday, still got the acoustic at least", [("user", "states", "Strat")],
     {"user:Strat"}),
    ("Aldi is still going but I quit Lidl", [("user", "works_at", "Aldi"), ("user", "works_at", "Lidl")],
     {"user:Lidl"}),
    ("Went nuclear and cancelled Disney+. Netflix survives for now.",
     [("user", "subscribes_to", "Netflix"), ("user", "subscribes_to", "Disney+")], {"user:Disney+"}),
    # a last dose, a rehoming, a final session with someone, boots hung up
    ("I took my last sertraline tablet a fortnight ago, so far so good.",
     [("user", "takes_medication", "sertraline 50mg")], {"user:sertraline 50mg"}),
    ("We made the really hard decision to rehome Luna. She's gone to a family with a farm.",
     [("user", "has_pet", "husky named Luna")], {"user:husky named Luna"}),
    ("Had my final session with Dr Okafor today, we agreed I'm in a good place.",
     [("user", "states", "therapist, Dr Okafor")], {"user:therapist, Dr Okafor"}),
    ("Hung up my boots on Saturday. Last ever game for Wanstead.", [("user", "member_of", "Wanstead RFC")],
     {"user:Wanstead RFC"}),
    # a sale is never for a while, whatever it paid for
])
def test_what_goes_on_and_more_ways_to_end(text: str, facts: list[tuple[str, str, str]], ended: set[str]) -> None:
    assert _ended(text, [held_fact(300 + i, *t) for i, t in enumerate(facts)]) == ended
