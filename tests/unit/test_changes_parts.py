"""The parts of change detection (pure): cue table, guards and actors, target scoring, retraction planning."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nova_memory_integrations.changes.cues import _CORRECTION_RE, _CUE_RE, find_cues, has_cue
from nova_memory_integrations.changes.guards import Known, check, find_actor
from nova_memory_integrations.changes.lexicon import ANY, CATEGORIES, CORRECTION_CUES, CUES
from nova_memory_integrations.changes.segments import normalize_text, segment
from nova_memory_integrations.changes.targets import (
    LAMBDA,
    MARGIN,
    THRESHOLD,
    Evidence,
    category_fit,
    choose,
    fact_category,
    fact_info,
    name_evidence,
    rescale_similarity,
    target_score,
)
from nova_memory_integrations.memory.temporal import Interval, plan_retraction
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
DATA = Path(__file__).resolve().parents[1] / "data"


def _fact(subject: str, predicate: str, obj: str, i: int = 0) -> Fact:
    return Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=T0, ingested_at=T0, provenance=(f"e{i}",))


# -- the cue table ----------------------------------------------------------------------------
def test_every_cue_is_well_formed_data() -> None:
    names = [c.name for c in CUES]
    assert len(names) == len(set(names))
    for cue in CUES:
        re.compile(cue.pattern)
        assert cue.categories and cue.categories <= CATEGORIES
        assert 0 < cue.strength <= 1 and cue.kind in ("end", "change", "announce")
    for cue in CORRECTION_CUES:
        re.compile(cue.pattern)


def _corpus() -> list[str]:
    texts = [t["content"] for line in (DATA / "beliefs_tuning.jsonl").read_text().splitlines() if line.strip()
             for t in json.loads(line)["turns"]]
    return [*texts, "I sold it.", "we're done", "it's history now", "the car's gone.", "Dropped out in May.",
                    "I'm not at Acme any more", "no wait, it's Lyon", "Retirement suits me", "We moved!"]


def test_the_anchor_prefilter_never_hides_a_cue() -> None:
    for text in _corpus():
        norm = normalize_text(text)
        if _CUE_RE.search(norm) or _CORRECTION_RE.search(norm) or find_cues(norm, segment(norm)):
            assert has_cue(norm), text


@pytest.mark.parametrize(("text", "cue"), [
    ("the boat's been sold", "sold"), ("Bean There is history.", "is history"), ("the car's gone.", "gone"),
    ("we called it quits", "broke up"), ("since my resignation from Acme", "resigned"),
    ("Retirement is strange", "retirement"), ("after the breakup", "breakup"), ("she moved on from it", "moved on"),
    ("I handed in my notice", "notice"), ("the van was written off", "written off"), ("we rehomed her", "rehomed"),
    ("it lapsed in May", "cancelled"), ("got let go from Kestrel", "laid off"), ("my ex-wife", "ex-"),
])
def test_cues_are_found_in_everyday_wording(text: str, cue: str) -> None:
    norm = normalize_text(text)
    assert [h.cue.name for h in find_cues(norm, segment(norm))][:1] == [cue]


def test_quoted_speech_is_blanked_out_with_offsets_kept() -> None:
    text = "my wife keeps saying 'sell that boat or I'm selling you!' every time"
    norm = normalize_text(text)
    assert len(norm) == len(text) and "sell" not in norm[20:] and norm.endswith("every time")


# -- guards and actors ------------------------------------------------------------------------
KNOWN = Known(people={"sister": "kate", "kate": "kate", "tom": "tom", "brother": "tom"},
              genders={"kate": "f", "tom": "m"})


@pytest.mark.parametrize(("prefix", "kind", "name"), [
    ("", "implicit", ""), ("ok honest update, ", "implicit", ""), ("I finally ", "user", ""),
    ("We ", "user", ""), ("my sister ", "third", "kate"), ("Kate ", "third", "kate"), ("Uncle Tom ", "third", "tom"),
    ("she ", "pronoun", "she"), ("it ", "pronoun", "it"), ("the boat's been ", "thing", "boat"),
    ("my neighbour's dog ", "thing", "dog"), ("someone ", "indefinite", "someone"),
    ("problem solved itself, Kate ", "third", "kate"), ("She hates it and ", "pronoun", "she"),
])
def test_the_actor_is_read_at_the_start_of_the_last_part_before_the_cue(prefix: str, kind: str, name: str) -> None:
    actor = find_actor(prefix, KNOWN)
    assert (actor.kind, actor.name) == (kind, name)


def test_x_and_i_is_the_user_with_a_partner() -> None:
    actor = find_actor("Tom and I ", KNOWN)
    assert (actor.kind, actor.partner) == ("user", "tom")


@pytest.mark.parametrize(("text", "guard"), [
    ("Have you ever sold a car privately?", "question"), ("I never sold the car.", "negation"),
    ("I might quit Acme.", "modality"), ("If I quit, I'd travel.", "modality"),
    ("I'm leaving Acme after the summer.", "future"), ("I'm quitting next month.", "future"),
    ("I handed in my notice today.", "future"), ("My first car was sold for scrap.", "reminiscence"),
    ("The physio says my running days are over.", "reported"), ("I sold the car.", None),
    ("No longer at Acme, thank god.", None), ("Didn't renew the lease.", None),
])
def test_guards(text: str, guard: str | None) -> None:
    norm = normalize_text(text)
    sentences = segment(norm)
    hit = find_cues(norm, sentences)[0]
    assert check(norm, sentences[hit.sentence], hit.clause, hit, KNOWN).guard == guard


# -- target scoring ---------------------------------------------------------------------------
def test_the_score_formula() -> None:
    e = Evidence(name_clause=0.5, sim=0.5)
    assert target_score(e, fit=1.0, strength=1.0) == pytest.approx(0.5 + LAMBDA * 0.5 * 0.5)
    assert target_score(Evidence(name_sentence=1.0), fit=0.8, strength=0.5) == pytest.approx(0.8 * 0.5 * 0.8)
    assert target_score(Evidence(unique=1.0), fit=1.0, strength=1.0) == pytest.approx(0.6)
    assert target_score(Evidence(sim=1.0), fit=1.0, strength=1.0) == pytest.approx(LAMBDA)  # meaning alone
    assert target_score(Evidence(name_clause=1.0), fit=0.0, strength=1.0) == 0.0
    assert (rescale_similarity(0.0), rescale_similarity(0.99)) == (0.0, 1.0)


def test_choose_needs_the_threshold_and_a_margin_unless_named() -> None:
    a, b = fact_info(_fact("user", "owns", "Golf", 1)), fact_info(_fact("user", "owns", "Polo", 2))
    weak = Evidence(unique=1.0)
    assert choose([(a, weak, THRESHOLD - 0.01)]) == []
    assert choose([(a, weak, 0.8), (b, weak, 0.8 - MARGIN / 2)]) == []  # too close to tell
    assert choose([(a, weak, 0.8), (b, weak, 0.79 - MARGIN)]) == [(a, weak, 0.8)]
    named = Evidence(name_clause=1.0)
    assert len(choose([(a, named, 1.0), (b, named, 1.0)])) == 2  # "Kiwi and Mango": both named


@pytest.mark.parametrize(("obj", "span", "level"), [
    ("Golf", "sent the old Golf to the scrapyard", 1.0), ("Mazda CX-5", "the CX-5 is a total loss", 1.0),
    ("book club", "quit the book club", 1.0), ("running", "done with running", 1.0),
    ("little fishing boat", "sell the boat", 0.8), ("22ft Catalina sailboat", "the boat's been sold", 0.5),
    ("smoking", "haven't smoked since", 0.8), ("Golf", "my golf swing", 1.0), ("Golf", "the Polo", 0.0),
])
def test_name_evidence_levels(obj: str, span: str, level: float) -> None:
    from nova_memory_integrations.changes.segments import words
    assert name_evidence(fact_info(_fact("user", "owns", obj)), words(span)) == level


def test_categories_from_predicates_and_objects() -> None:
    assert fact_category(_fact("user", "works_at", "Acme")) == "job"
    assert fact_category(_fact("user", "owns", "flat in Leeds")) == "home"
    assert fact_category(_fact("user", "girlfriend_name", "Amy")) == "relationship"
    assert fact_category(_fact("user", "sister_name", "Kate")) == "identity"  # never ended by a cue
    assert fact_category(_fact("user", "likes", "jazz")) == ANY
    assert category_fit("identity", {ANY}) == 0.0 and category_fit("job", {"job"}) == 1.0
    assert category_fit(ANY, {"job"}) == 0.8 and category_fit("pet", {"job"}) == 0.0


# -- retraction planning ----------------------------------------------------------------------
D = timedelta(days=1)


def test_a_correction_retracts_and_the_corrected_value_takes_the_start() -> None:
    wrong = [Interval("p", "paris", T0, None)]
    plan = plan_retraction(wrong, [], T0 + 14 * D)
    assert (plan.op, plan.expire, plan.add, plan.valid_from, plan.valid_to) == ("UPDATE", ("p",), True, T0, None)


def test_a_corrected_value_added_later_by_the_same_message_is_rebased() -> None:
    wrong = [Interval("p2", "paris", T0, T0 + 14 * D)]  # closed at the message time by the mistaken update
    later = [Interval("l", "lyon", T0 + 14 * D, None)]
    plan = plan_retraction(wrong, later, T0 + 14 * D)
    assert (plan.expire, plan.rebase, plan.valid_from, plan.valid_to) == (("p2",), ("l",), T0, None)


def test_a_value_that_had_already_ended_keeps_its_end() -> None:
    wrong = [Interval("p2", "paris", T0, T0 + 5 * D)]
    plan = plan_retraction(wrong, [], T0 + 14 * D)
    assert (plan.valid_from, plan.valid_to) == (T0, T0 + 5 * D)


def test_a_corrected_value_already_held_from_the_start_is_reinforced_only() -> None:
    plan = plan_retraction([Interval("p", "paris", T0 + D, None)], [Interval("l", "lyon", T0, None)], T0 + 9 * D)
    assert (plan.expire, plan.add, plan.reinforce_id) == (("p",), False, "l")
    assert plan_retraction([], [], T0).op == "NOOP"
