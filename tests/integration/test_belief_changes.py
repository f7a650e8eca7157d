"""Belief changes through a real store (real SQLite, Chroma and MiniLM): issue #38.

What a later turn ends, corrects or leaves alone, read back with ``facts(as_of=..., known_at=...)``.
The first state is asserted with ``add_fact`` (what the extractor captures of first statements is
another concern); the later turns go through ``add_turn`` and deterministic consolidation.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from fake_llms import FakeToolChatModel, ops_message

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations._time import utcnow

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def _say(store: NovaStore, user: str, text: str, at: datetime) -> None:
    store.add_turn(user, "user", text, timestamp=at)
    store.consolidate(user)


def _objects(store: NovaStore, user: str, **kw: object) -> set[str]:
    return {f"{f.subject}:{f.object}" for f in store.facts(user, **kw)}  # type: ignore[arg-type]


def test_an_ending_with_a_pronoun_target_closes_the_fact_in_valid_time(store: NovaStore) -> None:
    store.add_fact("u", "user", "owns", "Yamaha U1 piano", valid_from=T0)
    store.add_fact("u", "user", "lives_in", "Bristol", valid_from=T0)
    _say(store, "u", "Made a decision about the Yamaha. We gave it to the primary school down the road, "
                     "the living room looks huge now.", T0 + 30 * DAY)
    assert _objects(store, "u", as_of=T0 + 10 * DAY) == {"user:Yamaha U1 piano", "user:Bristol"}
    assert _objects(store, "u", as_of=T0 + 31 * DAY) == {"user:Bristol"}
    (closed,) = [f for f in store.facts("u", include_history=True) if f.object == "Yamaha U1 piano"]
    assert closed.valid_to == T0 + 30 * DAY
    episode = store.episodes("u")[-1]
    assert episode.id in closed.provenance
    (decision,) = [d for d in store.components.db.decisions("u") if d.op == "DELETE"]
    assert "cue 'gave away'" in decision.reason and "reference" in decision.reason
    assert decision.episode_ids == (episode.id,)


def test_a_correction_retracts_the_old_value_in_valid_time_and_keeps_it_in_belief_time(store: NovaStore) -> None:
    _say(store, "u", "I just moved to Paris for work and I'm hunting for a good boulangerie.", T0)
    assert _objects(store, "u") == {"user:Paris"}
    time.sleep(0.01)
    before = utcnow()
    time.sleep(0.01)
    _say(store, "u", "Oh wait — I realise I said Paris the other day. I actually moved to Lyon, not Paris. "
                     "Any bouchon recommendations?", T0 + 14 * DAY)
    # valid time: Lyon all along, Paris never
    assert _objects(store, "u", as_of=T0 + 7 * DAY) == {"user:Lyon"}
    assert _objects(store, "u", as_of=T0 + 20 * DAY) == {"user:Lyon"}
    # belief time: before the correction the store believed Paris
    assert _objects(store, "u", as_of=T0 + 7 * DAY, known_at=before) == {"user:Paris"}
    # no closed copy of Paris remains in the latest belief
    assert {f.object for f in store.facts("u", include_history=True)} == {"Lyon"}
    (lyon,) = store.facts("u", include_history=True)
    assert lyon.valid_from == T0 and lyon.valid_to is None
    (decision,) = [d for d in store.components.db.decisions("u") if d.reason and "corrected" in d.reason]
    assert decision.op == "UPDATE" and decision.object == "Lyon"


def test_guarded_statements_change_nothing(store: NovaStore) -> None:
    for pred, obj in (("owns", "VW Polo"), ("works_at", "Accenture"), ("lives_in", "Amsterdam"),
                      ("girlfriend_name", "Keira")):
        store.add_fact("u", "user", pred, obj, valid_from=T0)
    before = _objects(store, "u")
    for i, text in enumerate([
        "should I sell my Polo and just use a car club? I only drive twice a month",  # a question
        "I might quit Accenture honestly. Or not. I go back and forth every week.",  # modality
        "I'm moving to Berlin in June for a new job. What documents do I need?",  # the future
        "no, I didn't break up with Keira lol, my mate assumed because I deleted Instagram",  # negation
        "my first car was a 1998 Fiat Panda and I sold it for scrap, anyway how's the Polo on range?",  # memory
        "my wife keeps saying 'sell that Polo or I'm selling you!' every time she reverses past it",  # quoted
    ]):
        _say(store, "u", text, T0 + (10 + i) * DAY)
    assert _objects(store, "u", as_of=T0 + 40 * DAY) == before
    assert [d for d in store.components.db.decisions("u") if d.op in ("DELETE", "UPDATE")] == []


def test_a_third_partys_news_ends_their_fact_never_the_users(store: NovaStore) -> None:
    store.add_fact("u", "user", "owns", "Volvo XC60", valid_from=T0)
    store.add_fact("u", "user", "friend_name", "Beth", valid_from=T0)
    store.add_fact("u", "beth", "owns", "Volvo XC60", valid_from=T0)
    store.add_fact("u", "user", "works_at", "Barclays", valid_from=T0)
    _say(store, "u", "my friend Beth sold her XC60 because of the exact same infotainment thing lol. "
                     "I'm keeping mine though, it's a tank.", T0 + 20 * DAY)
    _say(store, "u", "my boss quit today. walked out mid-meeting. absolute chaos.", T0 + 25 * DAY)
    now = _objects(store, "u", as_of=T0 + 30 * DAY)
    assert {"user:Volvo XC60", "user:Barclays", "user:Beth"} <= now
    assert "beth:Volvo XC60" not in now and "beth:Volvo XC60" in _objects(store, "u", as_of=T0 + 10 * DAY)


def test_a_repeat_reinforces_and_keeps_the_start(store: NovaStore) -> None:
    _say(store, "u", "I live in Oxford and want to get into wild swimming.", T0)
    _say(store, "u", "I live in Oxford, six years now and counting.", T0 + 60 * DAY)
    (fact,) = store.facts("u", predicate="lives_in", include_history=True)
    assert (fact.object, fact.valid_from, fact.valid_to, fact.occurrence_count) == ("Oxford", T0, None, 2)
    assert fact.confidence > store.config.facts.default_confidence


def test_an_llm_sees_the_facts_a_turn_may_end_first(make_store: object) -> None:
    seen: list[dict[str, str]] = []

    def respond(prompt: object, tools: object) -> object:
        seen.append(dict(prompt.facts))  # type: ignore[attr-defined]
        return ops_message([{"episode": ref, "operations": []} for ref, *_ in prompt.episodes])  # type: ignore[attr-defined]

    config = NovaConfig.from_dict({"consolidation": {"llm_context_facts": 2}})
    store: NovaStore = make_store(config=config, llm=FakeToolChatModel(respond=respond))  # type: ignore[operator]
    for i, (pred, obj) in enumerate([("likes", "jazz"), ("likes", "chess"), ("speaks", "French"),
                                     ("owns", "22ft Catalina sailboat"), ("likes", "soup")]):
        store.add_fact("u", "user", pred, obj, valid_from=T0 + i * DAY)
    store.add_turn("u", "user", "Long week. Kids had colds, and the boat's been sold. Anyway, soup recipes?",
                   timestamp=T0 + 30 * DAY)
    store.consolidate("u")
    (facts,) = seen
    assert next(iter(facts.values())) == "user owns 22ft Catalina sailboat"  # first, though beyond the limit
    # the deterministic planner does not run for an LLM source: the model decides (here: nothing)
    assert {f.object for f in store.facts("u", predicate="owns")} == {"22ft Catalina sailboat"}


def test_an_llm_update_that_corrects_a_mistake_is_a_retraction(make_store: object) -> None:
    def respond(prompt: object, tools: object) -> object:
        ref = prompt.fact_ref("user lives_in Paris")  # type: ignore[attr-defined]
        ops = [{"op": "UPDATE", "subject": "user", "predicate": "lives_in", "object": "Lyon", "target_fact": ref,
                "reason": "the user corrected the city they moved to"}] if ref else []
        return ops_message([{"episode": e[0], "operations": ops} for e in prompt.episodes])  # type: ignore[attr-defined]

    store: NovaStore = make_store(llm=FakeToolChatModel(respond=respond))  # type: ignore[operator]
    store.add_fact("u", "user", "lives_in", "Paris", valid_from=T0)
    store.add_turn("u", "user", "Sorry, I meant Lyon, not Paris.", timestamp=T0 + 14 * DAY)
    store.consolidate("u")
    assert _objects(store, "u", as_of=T0 + 7 * DAY) == {"user:Lyon"}
    assert {f.object for f in store.facts("u", include_history=True)} == {"Lyon"}


# -- corrections without a cue word, and one more job (issue #38) -----------------------------------------


def _held(store: NovaStore, **kw: object) -> set[str]:
    """The user's current ``predicate:object`` pairs."""
    return {f"{f.predicate}:{f.object}" for f in store.facts("u", **kw)}  # type: ignore[arg-type]


def test_a_near_value_is_not_resolved_back_onto_the_value_it_corrects(store: NovaStore) -> None:
    store.add_fact("u", "user", "states", "choir practice on Thursdays", valid_from=T0)
    time.sleep(0.01)
    before = utcnow()
    time.sleep(0.01)
    _say(store, "u", "I told you Thursdays for choir practice but it's Tuesdays, always has been.", T0 + 10 * DAY)
    assert "states:choir practice on Tuesdays" in _held(store, as_of=T0 + 2 * DAY)
    assert "states:choir practice on Thursdays" not in _held(store, as_of=T0 + 2 * DAY)
    assert "states:choir practice on Thursdays" in _held(store, as_of=T0 + 2 * DAY, known_at=before)


def test_the_correcting_message_restating_the_wrong_value_does_not_keep_it(store: NovaStore) -> None:
    _say(store, "u", "I'm pescatarian these days", T0)
    assert _held(store) == {"diet:pescatarian"}
    _say(store, "u", "Ugh I misspoke before - I'm fully vegetarian, no fish at all. Pescatarian was my mum.",
         T0 + 10 * DAY)
    assert _held(store, as_of=T0 + 2 * DAY) == {"diet:vegetarian"}
    assert _held(store, as_of=T0 + 20 * DAY) == {"diet:vegetarian"}


def test_kidding_about_a_value_retracts_it(store: NovaStore) -> None:
    store.add_fact("u", "user", "supports", "Hibs", valid_from=T0)
    _say(store, "u", "I was only kidding about Hibs 🙈 I'm Hearts, born and raised.", T0 + 10 * DAY)
    supports = {f.object for f in store.facts("u", as_of=T0 + 2 * DAY) if f.predicate == "supports"}
    assert supports == {"Hearts"}


def test_a_job_said_as_one_more_keeps_the_held_job(store: NovaStore) -> None:
    _say(store, "u", "I work as a nurse", T0)
    _say(store, "u", "I'm a tutor on the side too, two evenings a week.", T0 + 10 * DAY)
    assert {"job_title:nurse", "job_title:tutor"} <= _held(store, as_of=T0 + 20 * DAY)
    assert not [f for f in store.facts("u", include_history=True) if f.valid_to is not None]


def test_a_job_said_instead_still_replaces_the_held_job(store: NovaStore) -> None:
    _say(store, "u", "I work at the council", T0)
    _say(store, "u", "I work at the Oxfam shop now.", T0 + 10 * DAY)
    works = {f.object for f in store.facts("u", as_of=T0 + 20 * DAY) if f.predicate == "works_at"}
    assert works == {"the Oxfam shop"}


def test_a_known_thing_named_in_passing_is_held_then_ended(store: NovaStore) -> None:
    """A state told only by naming a known thing ("what's good on netflix") is captured under its kind's
    predicate, is not told again by a later mention, and ends when the user cancels it (issue #38)."""
    _say(store, "u", "what's actually good on netflix right now? we've burned through everything", T0)
    _say(store, "u", "HSBC app has logged me out again and wants me to ring them. Why are banks like this", T0 + DAY)
    held = {(f.predicate, f.object) for f in store.facts("u")}
    assert ("subscribes_to", "netflix") in held and ("customer_of", "HSBC") in held
    _say(store, "u", "anything new on Netflix this week?", T0 + 2 * DAY)
    assert len([f for f in store.facts("u") if "netflix" in f.object.lower()]) == 1
    _say(store, "u", "Cancelled Netflix today, it's not worth £18 a month.", T0 + 20 * DAY)
    assert not [f for f in store.facts("u", as_of=T0 + 21 * DAY) if "netflix" in f.object.lower()]
    assert [f for f in store.facts("u", as_of=T0 + 10 * DAY) if "netflix" in f.object.lower()]


def test_a_brand_asked_about_or_weighed_is_not_held(store: NovaStore) -> None:
    _say(store, "u", "Should I go with Vodafone or EE for a new contract? Is a Tesla worth it for commuting?", T0)
    _say(store, "u", "My mate Marcus's flat is near the Tesco in Peckham, I popped in for a meal deal.", T0 + DAY)
    assert not [f for f in store.facts("u")
                if any(n in f.object for n in ("Vodafone", "EE", "Tesla", "Tesco"))]


def test_a_known_thing_a_change_tells_succeeds_the_held_one_of_its_kind(store: NovaStore) -> None:
    """A change that names the new thing of a known kind ends the held one it is part of, and the new one
    holds from then on; a same-kind name in a change about something else ends nothing (issue #38)."""
    _say(store, "u", "Vodafone signal in my flat is dreadful, zero bars in the kitchen.", T0)
    _say(store, "u", "My Pixel 6 battery is dying by lunchtime, any tips?", T0 + DAY)
    _say(store, "u", "HSBC app has logged me out again, so annoying.", T0 + 2 * DAY)
    _say(store, "u", "ported my number to giffgaff this week, vodafone can do one", T0 + 30 * DAY)
    _say(store, "u", "Caved and got an iPhone 16, passed the Pixel on to my brother.", T0 + 40 * DAY)
    _say(store, "u", "Sold the bike at last! Anyway my Barclays card got declined at the shop, weird.", T0 + 50 * DAY)
    now = {f.object for f in store.facts("u", as_of=T0 + 60 * DAY) if f.subject == "user"}
    assert {"giffgaff", "iPhone 16", "HSBC"} <= now
    assert not {"Vodafone", "Pixel 6"} & now
    before = {f.object for f in store.facts("u", as_of=T0 + 10 * DAY) if f.subject == "user"}
    assert {"Vodafone", "Pixel 6", "HSBC"} <= before


def test_a_model_name_told_short_is_the_thing_held_not_another(store: NovaStore) -> None:
    """"my s23" after "my Samsung Galaxy S23" reinforces the one held, never a second fact (repeats never
    duplicate, issue #38): a model word has no content word of four letters to match by."""
    _say(store, "u", "How do I stop my Samsung Galaxy S23 from draining battery overnight?", T0)
    _say(store, "u", "my s23 is doing the thing again where it gets hot when charging. normal?", T0 + 30 * DAY)
    _say(store, "u", "Is it worth getting a case with a screen protector for my S23?", T0 + 60 * DAY)
    assert len([f for f in store.facts("u") if "s23" in f.object.lower()]) == 1


def test_a_thing_told_with_a_possessive_and_then_ended_is_not_told_again(store: NovaStore) -> None:
    """"my Fiesta's making a noise", later "the old Fiesta finally bit the dust. scrapped it": the named Fiesta of
    the ending message is the one the change ended ("Fiesta's" is "Fiesta"), never held anew (issue #38)."""
    _say(store, "u", "my Fiesta's making a grinding noise when I brake, is it safe to drive?", T0)
    _say(store, "u", "the old Fiesta finally bit the dust. scrapped it thursday, got £180 for it.", T0 + 60 * DAY)
    assert not [f for f in store.facts("u") if "fiesta" in f.object.lower()]


def test_a_move_to_a_known_supplier_replaces_the_supplier_not_the_home(store: NovaStore) -> None:
    """"Moved over to Octopus": the held energy supplier ends, the home told beside it stays (issue #38)."""
    _say(store, "u", "British Gas want to put my direct debit up to £210 a month. I'm in a 2 bed terrace.", T0)
    _say(store, "u", "Moved over to Octopus. The switch completed on the 1st.", T0 + 60 * DAY)
    now = {(f.predicate, f.object) for f in store.facts("u")}
    assert ("customer_of", "Octopus") in now and ("customer_of", "British Gas") not in now
    assert not any(p == "lives_in" and o == "Octopus" for p, o in now)
    assert any("terrace" in o for _, o in now)


def test_a_persons_new_thing_succeeds_the_one_of_its_kind_the_change_ends(store: NovaStore) -> None:
    """A third party's change told with a part-exchange: the old car ends, the new one of its kind is hers."""
    _say(store, "u", "My wife drives a Qashqai and the parking sensors keep beeping at nothing. Any ideas?", T0)
    _say(store, "u", "She's finally done it - my wife picked up her Tesla Model Y on Saturday and the Qashqai went "
                     "in part-ex. She's now insufferable about 0-60 times.", T0 + 60 * DAY)
    held = {f.object for f in store.facts("u", as_of=T0 + 70 * DAY) if f.subject == "wife"}
    assert "Qashqai" not in held and any("Tesla" in v for v in held)
    assert "Qashqai" in {f.object for f in store.facts("u", as_of=T0 + 30 * DAY) if f.subject == "wife"}


def test_a_short_name_the_change_ended_is_not_told_again_by_the_same_message(store: NovaStore) -> None:
    """"ported my number to giffgaff ... why did i pay o2": the message names O2 again, as what it left."""
    _say(store, "u", "Is £32 a month for 100GB on O2 a rip off? My contract's up in March.", T0)
    _say(store, "u", "ported my number to giffgaff, took about 10 mins. £12 a month now lol why did i pay o2 for so "
                     "long", T0 + 60 * DAY)
    now = {f.object.lower() for f in store.facts("u", as_of=T0 + 61 * DAY)}
    assert "giffgaff" in now and "o2" not in now
    assert "o2" in {f.object.lower() for f in store.facts("u", as_of=T0 + 30 * DAY)}


def test_selling_another_model_of_a_line_ends_nothing_held(store: NovaStore) -> None:
    """"sold my old PS4" while a PS5 is held: alike in meaning, another thing; neither ended nor its successor."""
    _say(store, "u", "Got a PS5 for Christmas!! What games should I get first?", T0)
    _say(store, "u", "sold my old PS4 on ebay for £120, not bad. what do i do with the 20 old PS4 discs, do they work "
                     "on the ps5?", T0 + 40 * DAY)
    assert any(f.object.lower() == "ps5" for f in store.facts("u", as_of=T0 + 45 * DAY))
    assert not [d for d in store.components.db.decisions("u") if d.op == "DELETE" and d.object.lower() == "ps5"]
