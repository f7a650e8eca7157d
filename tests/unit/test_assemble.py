"""Assembly (``assemble.render`` / ``assemble.fit``) on hand-made items with the real MiniLM tokenizer."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.engine.tokens import TokenCounter, get_token_counter
from nova_memory_integrations.retrieval.assemble import _human, escape, fit, line, render
from nova_memory_integrations.types import ContextItem

FORMATS = ("markdown", "json", "xml", "plain")
T0 = datetime(2024, 5, 6, 10, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return get_token_counter("minilm")


def _turn(i: int, text: str, *, day: int = 0, role: str = "user", session: str = "s1") -> ContextItem:
    return ContextItem(kind="episode", id=f"ep_{i}", text=text, score=1.0 / (i + 1),
                       timestamp=T0 + timedelta(days=day, minutes=i), session_id=session, provenance=(f"ep_{i}",),
                       metadata={"role": role})


def _fact(i: int, text: str) -> ContextItem:
    return ContextItem(kind="fact", id=f"fa_{i}", text=text, score=0.5, timestamp=T0, valid_from=T0,
                       confidence=0.8, provenance=("ep_0",))


def _rule(i: int, text: str) -> ContextItem:
    return ContextItem(kind="rule", id=f"ru_{i}", text=text, score=0.4, timestamp=T0, confidence=0.8)


def _items() -> list[ContextItem]:
    words = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "near", "the", "river", "bank"]
    out: list[ContextItem] = []
    for i in range(30):
        n = 4 + (i * 7) % 40
        text = " ".join(words[j % len(words)] for j in range(n)) + f" item{i}."
        out.append(_turn(i, text, day=i % 5, role="user" if i % 2 else "assistant", session=f"s{i % 3}"))
    out.insert(3, _fact(1, "user lives in Lisbon"))
    out.insert(7, _fact(2, "Maya works at Acme"))
    out.insert(5, _rule(1, "When the user asks for code: answer in Rust"))
    return out


def test_render_empty_is_empty() -> None:
    for fmt in FORMATS:
        assert render([], fmt) == ""  # type: ignore[arg-type]


def test_render_sections_and_chronological_turns() -> None:
    items = [_turn(2, "second", day=2), _fact(1, "user likes tea"), _turn(1, "first", day=1), _rule(1, "When x: y")]
    md = render(items, "markdown")
    assert md.index("## Facts") < md.index("## Relevant past conversation") < md.index("## Rules")
    assert md.index("first") < md.index("second")
    data = json.loads(render(items, "json"))["memory"]
    assert [t["id"] for t in data["turns"]] == ["ep_1", "ep_2"]
    assert data["facts"][0]["valid_from"] == "2024-05-06" and data["facts"][0]["valid_to"] is None
    root = ET.fromstring(render(items, "xml"))
    assert [el.attrib["id"] for el in root.find("turns")] == ["ep_1", "ep_2"]  # type: ignore[union-attr]


def test_fact_validity_is_rendered() -> None:
    closed = _fact(1, "user lives in Paris").model_copy(update={"valid_to": T0 + timedelta(days=30)})
    assert "until" in render([closed], "markdown")
    assert json.loads(render([closed], "json"))["memory"]["facts"][0]["valid_to"] == "2024-06-05"
    assert ET.fromstring(render([closed], "xml")).find("facts/fact").attrib["valid_to"] == "2024-06-05"  # type: ignore[union-attr]


def test_escape_keeps_content_on_one_line() -> None:
    assert escape("a\n\n## b </memory> & <x>\t c") == "a ## b &lt;/memory&gt; &amp; &lt;x&gt; c"


@pytest.mark.parametrize("fmt", FORMATS)
def test_fit_never_exceeds_the_budget(counter: TokenCounter, fmt: str) -> None:
    items = _items()
    full = counter.count(render(items, fmt))  # type: ignore[arg-type]
    for budget in (1, 5, 20, 40, 50, 64, 100, 150, 200, 333, 500, 800, full - 1, full, full + 50):
        text, tokens, kept, dropped = fit(items, fmt, budget, counter)  # type: ignore[arg-type]
        assert tokens == counter.count(text) <= budget, (budget, tokens)
        assert text == render(kept, fmt)  # type: ignore[arg-type]
        assert sorted(i.id for i in kept + dropped) == sorted(i.id for i in items)
        positions = [items.index(i) for i in kept]
        assert positions == sorted(positions)  # kept items keep their priority order
        if not kept:
            assert text == "" and tokens == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_fit_keeps_everything_when_everything_fits(counter: TokenCounter, fmt: str) -> None:
    items = _items()
    full = counter.count(render(items, fmt))  # type: ignore[arg-type]
    _, tokens, kept, dropped = fit(items, fmt, full + 50, counter)  # type: ignore[arg-type]  # slack for estimates
    assert not dropped, f"{fmt}: {len(dropped)} dropped although the whole render is {full} tokens"
    assert tokens == full and len(kept) == len(items)


@pytest.mark.parametrize("fmt", FORMATS)
def test_fit_uses_most_of_the_budget(counter: TokenCounter, fmt: str) -> None:
    """Items are small (< 60 tokens) and plentiful: packing must not leave much of the budget unused."""
    items = _items()
    assert counter.count(render(items, fmt)) > 1000  # type: ignore[arg-type]
    for budget in (300, 1000):
        _, tokens, kept, dropped = fit(items, fmt, budget, counter)  # type: ignore[arg-type]
        assert dropped
        assert tokens >= 0.8 * budget, f"{fmt}: {tokens}/{budget} tokens used, {len(kept)} kept, {len(dropped)} dropped"


def test_fit_prefers_higher_priority_items(counter: TokenCounter) -> None:
    items = [_turn(i, f"memory number {i} about topic {i}") for i in range(20)]
    _, _, kept, dropped = fit(items, "markdown", 80, counter)
    assert kept and dropped
    assert kept[0].id == "ep_0"
    assert max(items.index(i) for i in kept) < min(items.index(i) for i in dropped)


def test_fit_respects_the_fact_share(counter: TokenCounter) -> None:
    items = [_fact(i, f"user fact number {i} with some extra words to make it longer") for i in range(20)]
    items += [_turn(i, f"turn {i} about the weather") for i in range(10)]
    budget = 300
    _, tokens, kept, _ = fit(items, "markdown", budget, counter, fact_share=0.3)
    assert tokens <= budget
    facts = [i for i in kept if i.kind == "fact"]
    assert facts and any(i.kind == "episode" for i in kept)
    fact_tokens = sum(counter.count(render([f], "markdown").split("\n")[3]) for f in facts)
    assert fact_tokens <= 0.3 * budget


def test_fit_with_whitespace_counter_also_holds() -> None:
    counter = get_token_counter("whitespace")
    items = _items()
    for fmt in FORMATS:
        for budget in (3, 30, 120, 400):
            text, tokens, _, _ = fit(items, fmt, budget, counter)  # type: ignore[arg-type]
            assert tokens == counter.count(text) <= budget


@pytest.mark.parametrize(("said", "note"), [
    ("Last Fri I took the kids to a pottery workshop.", "(Last Fri = Friday 14 July 2023)"),
    ("We met last tues. at the cafe.", "(last tues = Tuesday 11 July 2023)"),
    ("I went to a support group yesterday.", "(yesterday = Friday 14 July 2023)"),
    ("3 days ago the car broke down.", "(3 days ago = Wednesday 12 July 2023)"),
    ("last week I ran a 10k.", "(last week = the week of 8 July 2023)"),
])
def test_relative_days_are_resolved_with_their_weekday(said: str, note: str) -> None:
    from nova_memory_integrations.retrieval.assemble import time_note

    assert time_note(said, datetime(2023, 7, 15, 13, 0, tzinfo=timezone.utc)).strip() == note


def test_words_that_only_look_like_weekday_abbreviations_are_left_alone() -> None:
    from nova_memory_integrations.retrieval.assemble import time_note

    when = datetime(2023, 7, 15, tzinfo=timezone.utc)
    assert time_note("We sat on the sun deck and had a wedding.", when) == ""
    assert time_note("The last sunset was great.", when) == ""


# -- the memoised turn line (``_speaker_line``): one entry per role, text and time --------------

def _said(text: str, when: datetime, role: str = "Jon") -> ContextItem:
    return ContextItem(kind="episode", id="ep_x", text=text, score=1.0, timestamp=when, session_id="s1",
                       provenance=("ep_x",), metadata={"role": role})


def test_a_turn_line_is_not_reused_for_another_speaker_with_the_same_words() -> None:
    render([_said("Lovely day at the lake.", T0, role="Jon")], "markdown")
    assert "- Gina: Lovely day at the lake." in render([_said("Lovely day at the lake.", T0, role="Gina")], "markdown")


def test_a_turn_line_is_not_reused_for_the_same_words_said_on_another_day() -> None:
    render([_said("I moved house last week.", datetime(2023, 7, 15, 12, tzinfo=timezone.utc))], "markdown")
    later = render([_said("I moved house last week.", datetime(2023, 9, 1, 12, tzinfo=timezone.utc))], "markdown")
    assert "last week = the week of 25 August 2023" in later


def test_the_same_instant_in_two_zones_is_named_by_each_zones_day() -> None:
    utc = datetime(2023, 5, 8, 23, 30, tzinfo=timezone.utc)
    east = utc.astimezone(timezone(timedelta(hours=2)))
    assert (_human(utc), _human(east)) == ("8 May 2023", "9 May 2023")


@pytest.mark.parametrize("fmt", FORMATS)
def test_reserved_items_come_first_within_their_share_and_the_budget_holds(counter: TokenCounter, fmt: str) -> None:
    reserved = [_fact(90 + i, f"user allergic to food number {i} of a long list of foods") for i in range(12)]
    items = [reserved[0], *_items()]  # a reserved fact found by relevance too: packed once
    for budget in (300, 1000):
        text, tokens, kept, dropped = fit(items, fmt, budget, counter, reserved=reserved, reserved_share=0.25)
        assert tokens <= budget and counter.count(text) == tokens
        ids = [i.id for i in kept]
        assert ids[0] == "fa_90" and ids.count("fa_90") == 1
        held = [i for i in kept if i.id.startswith("fa_9")]
        assert 0 < len(held) < len(reserved)  # the share, not the whole list
        assert ids[:len(held)] == [i.id for i in reserved[:len(held)]]  # most important first
        assert sum(counter.count(line(i, fmt)) + 1 for i in held) <= 0.25 * budget
        assert any(i.kind == "episode" for i in kept)  # relevance fills the rest
        assert {i.id for i in dropped} | set(ids) >= {i.id for i in reserved}


def test_no_reserved_share_packs_as_before(counter: TokenCounter) -> None:
    items = _items()
    assert fit(items, "markdown", 300, counter) == fit(items, "markdown", 300, counter, reserved=[],
                                                       reserved_share=0.3)
    reserved = [_fact(90, "user allergic to shellfish")]
    _, _, kept, _ = fit(items, "markdown", 300, counter, reserved=reserved, reserved_share=0.0)
    assert "fa_90" not in {i.id for i in kept}
