"""Implausible operations from a real small model are refused, never stored.

The answers below are real tool-call arguments of SmolLM2-135M-Instruct (llama.cpp server,
``consolidation-v2`` prompt), seen while recording ``tests/cassettes/llm_http/``; they are
replayed here through a scripted ``StructuredLLM`` (the only fake: the model).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pytest
from pydantic import BaseModel

from nova_memory_integrations.extraction.llm import LLMExtractor
from nova_memory_integrations.extraction.llms import LLMReply
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
EPISODES = [
    Episode(id="e1", user_id="u", role="user", content="I live in Berlin.", timestamp=T0, ingested_at=T0),
    Episode(id="e2", user_id="u", role="user", content="I sold my Honda Civic and bought a Tesla.", timestamp=T0,
            ingested_at=T0),
]


class Scripted:
    name = "scripted"

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.seen: list[str] = []

    def invoke_structured(self, messages: Sequence[tuple[str, str]], schema: type[BaseModel]) -> LLMReply:
        self.seen.append(messages[-1][1])
        return LLMReply(data=self.answers.pop(0))


def _op(subject: str, predicate: str, obj: str, op: str = "ADD") -> dict[str, Any]:
    return {"episodes": [{"episode": "1", "operations": [{"op": op, "subject": subject, "predicate": predicate,
                                                           "object": obj}]}, {"episode": "2", "operations": []}]}


REAL_NONSENSE = [
    pytest.param(_op("1", "E2.I sold my Honda Civic and bought a Tesla.", "&#34;, E1,"), id="sentence-predicate"),
    pytest.param(_op("user&#34;I live in Berlin.", "has_pet &lt;name, has_family &gt;family,", "user", "NOOP"),
                 id="markup-predicate"),
    pytest.param(_op("", "no_funny_name*autojs.png is a nerf of my favorite game, Nexus 2.1",
                     "narc-jab-unimplemented", "NOOP"), id="no-subject"),
    pytest.param(_op("][", "Sell", "]["), id="punctuation-subject"),
    pytest.param(_op("F-reference of the existing fact this UPDATE / DELETE / NOOP is about.",
                     "I am a Berliner, I live in Germany.", "Benhaltak_Zebra"), id="copied-description"),
]


@pytest.mark.parametrize("answer", REAL_NONSENSE)
def test_a_real_nonsense_operation_is_not_planned(answer: dict[str, Any]) -> None:
    llm = Scripted([answer])
    plan = LLMExtractor(llm, max_retries=0, backoff=0).plan("u", EPISODES, ())
    assert "e1" in plan.failed


def test_the_reason_goes_back_to_the_model() -> None:
    llm = Scripted([_op("user", "E2.I sold my Honda Civic and bought a Tesla.", "Tesla"), _op("user", "owns", "Tesla")])
    LLMExtractor(llm, max_retries=1, backoff=0).plan("u", EPISODES, ())
    assert "implausible predicate" in llm.seen[1]


def test_html_entities_of_a_plausible_operation_are_unescaped() -> None:
    llm = Scripted([_op("user", "likes", "Simon &amp; Garfunkel")])
    plan = LLMExtractor(llm, max_retries=0, backoff=0).plan("u", EPISODES, ())
    assert plan.proposals["e1"][0].object == "Simon & Garfunkel"


@pytest.mark.parametrize("predicate", ["lives_in", "favorite_ice_cream_flavor", "Works At", "café_owner"])
def test_plausible_predicates_pass(predicate: str) -> None:
    plan = LLMExtractor(Scripted([_op("user", predicate, "x1")]), max_retries=0, backoff=0).plan("u", EPISODES, ())
    assert plan.failed == {}
