"""Versioned prompts of the LLM extractor, with the pydantic schemas of their output.

The model answers with consolidation's operations, but the prompts live beside the code that sends
them and reads the answer (:mod:`.llm`, the adapters of :mod:`.llms`): consolidation only applies
the proposals, so it depends on extraction and never the other way round.

Every prompt lives here, under a version string; a prompt is never edited in place once
released — a new version is added and ``DEFAULT_PROMPT_VERSION`` moves (the version used
is recorded in each fact's metadata, so results stay explainable).

``consolidation-v2`` (the default) sends a batch of episodes (``E1``, ``E2``... oldest first) and the
existing facts relevant to them (``F1``, ``F2``...), and asks for one structured answer
(the ``record_memory_operations`` tool) listing, for *every* episode, the memory
operations it implies: ADD a new fact, UPDATE an existing one (a new value supersedes
it), DELETE one (it stopped holding), NOOP (restated; reinforces it). Lenient
validators accept the usual near-misses of real models (lowercase ops, synonyms,
numbers as strings, bare episode numbers).

``consolidation-v2`` keeps v1's schema and adds what v1 got wrong: endings and transitions
(a DELETE's ``valid_from`` is the date the fact *stopped* holding; an ending plus a
replacement in one episode gives both operations), multi-valued predicates (a new pet,
car or hobby does not end the old one; only an ending does), and named relatives as the
subject of what is said about them (``Luis job_title chef`` and ``Luis sibling_of user``,
not ``brother job_title chef``), as the deterministic extractor does.

``consolidation-v3`` (the default) is v2 with the model's rating of each operation's importance
(:data:`IMPORTANCE_RULES`, 1-5 on the scale of :mod:`~nova_memory_integrations.memory.importance`):
an optional ``importance`` of the operation. Every version *accepts* the field (an unasked-for
rating is used too, and a malformed one is dropped, never failing the answer); only v3 asks for
it and shows it in its schema. A fact the model rated gets that importance unless the caller, the
application's declared predicate or an explicit request says otherwise (``FactMemory.apply``); the
deterministic rating stays the fallback and the offline default.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from .._time import in_range
from ..types import Episode, Fact

__all__ = [
    "DEFAULT_PROMPT_VERSION",
    "IMPORTANCE_RULES",
    "EpisodeOperationsV1",
    "EpisodeOperationsV3",
    "MemoryOperationV1",
    "MemoryOperationV3",
    "PromptSpec",
    "RecordMemoryOperationsV1",
    "RecordMemoryOperationsV3",
    "get_prompt",
    "json_instruction",
    "parse_timestamp",
    "tool_name",
]

DEFAULT_PROMPT_VERSION = "consolidation-v3"

Message = tuple[str, str]
"""``(role, content)`` with role ``system``, ``user`` or ``assistant``."""

_IMPORTANCE_WORDS = {"critical": 5, "very high": 5, "high": 4, "medium": 3, "normal": 3, "moderate": 3,
                     "low": 2, "very low": 1, "trivial": 1}

_OP_SYNONYMS = {
    "ADD": "ADD", "CREATE": "ADD", "INSERT": "ADD", "NEW": "ADD", "ASSERT": "ADD",
    "UPDATE": "UPDATE", "REPLACE": "UPDATE", "MODIFY": "UPDATE", "CHANGE": "UPDATE", "SUPERSEDE": "UPDATE",
    "DELETE": "DELETE", "REMOVE": "DELETE", "INVALIDATE": "DELETE", "NEGATE": "DELETE", "RETRACT": "DELETE",
    "NOOP": "NOOP", "NONE": "NOOP", "NO_OP": "NOOP", "SKIP": "NOOP", "KEEP": "NOOP", "REINFORCE": "NOOP",
}


class MemoryOperationV1(BaseModel):
    """One memory operation implied by one episode."""

    model_config = ConfigDict(extra="ignore")

    op: Literal["ADD", "UPDATE", "DELETE", "NOOP"] = Field(
        description="ADD a new fact; UPDATE an existing fact whose value changed (give target_fact); "
        "DELETE a fact that stopped holding; NOOP when the episode restates a known fact"
    )
    subject: str = Field(description='"user" for the speaker; else the person or thing, e.g. "sister", "bob"')
    predicate: str = Field(description="snake_case relation, e.g. lives_in, works_at, likes, favorite_color")
    object: str = Field(description="the value as written, without leading articles")
    target_fact: str | None = Field(
        default=None, description="F-reference of the existing fact this UPDATE / DELETE / NOOP is about"
    )
    valid_from: str | None = Field(
        default=None, description="ISO date (YYYY-MM-DD) when it became true if the text says so, else null"
    )
    confidence: float = Field(default=0.8, ge=0.0, le=1.0, description="how sure you are, 0..1")
    reason: str = Field(default="", description="one short sentence: why this operation")
    importance: SkipJsonSchema[int | None] = None
    """The model's rating, 1-5, where a prompt asks for it (v3 shows it in its schema); read from any
    version's answer, and ``None`` when absent or unreadable."""

    @field_validator("op", mode="before")
    @classmethod
    def _op(cls, value: Any) -> Any:
        if isinstance(value, str):
            key = value.strip().upper().replace("-", "_").replace(" ", "_")
            return _OP_SYNONYMS.get(key, key)
        return value

    @field_validator("subject", "predicate", "object", "reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return "" if value is None else value

    @field_validator("target_fact", "valid_from", mode="before")
    @classmethod
    def _optional(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return f"F{value}"
        if isinstance(value, str) and value.strip().lower() in ("", "null", "none", "n/a"):
            return None
        return value

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        words = {"high": 0.9, "medium": 0.7, "low": 0.5}
        if isinstance(value, str):
            text = value.strip().lower().rstrip("%")
            if text in words:
                return words[text]
            try:
                value = float(text) / (100 if value.strip().endswith("%") else 1)
            except ValueError:
                return 0.8
        if value is None:
            return 0.8
        if isinstance(value, (int, float)):
            return min(1.0, max(0.0, float(value) / 100 if value > 1 else float(value)))
        return value

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> int | None:
        """1-5 from what models write (``4``, ``"4"``, ``"4/5"``, ``"high"``, ``0.9`` on a 0-1 scale: 5);
        anything else is no rating: a bad rating never makes the operation unusable."""
        if isinstance(value, str):
            text = value.strip().lower().split("/")[0].strip()
            value = _IMPORTANCE_WORDS.get(text, text)
        if isinstance(value, bool):
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        level = 1 + round(number * 4) if 0 < number < 1 else round(number)
        return level if 1 <= level <= 5 else None


class EpisodeOperationsV1(BaseModel):
    """The operations implied by one episode (an empty list when it states nothing to remember)."""

    model_config = ConfigDict(extra="ignore")

    episode: str = Field(description="the episode reference, e.g. E1")
    operations: list[MemoryOperationV1] = Field(default_factory=list)

    @field_validator("episode", mode="before")
    @classmethod
    def _episode(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return f"E{value}"
        if isinstance(value, str) and value.strip().isdigit():
            return f"E{value.strip()}"
        return value.strip().upper() if isinstance(value, str) else value


class RecordMemoryOperationsV1(BaseModel):
    """Record the memory operations of every episode in the batch (each episode exactly once)."""

    model_config = ConfigDict(extra="ignore", title="record_memory_operations")

    episodes: list[EpisodeOperationsV1] = Field(description="one entry per episode, in order")


class MemoryOperationV3(MemoryOperationV1):
    """One memory operation, rated: v1's fields and the model's importance of the fact."""

    importance: int | None = Field(  # type: ignore[assignment]
        default=None, description="how much it matters to remember, 1 (small talk) to 5 (health and safety)")


class EpisodeOperationsV3(EpisodeOperationsV1):
    """The rated operations implied by one episode."""

    operations: list[MemoryOperationV3] = Field(default_factory=list)  # type: ignore[assignment]


class RecordMemoryOperationsV3(BaseModel):
    """Record the memory operations of every episode in the batch (each episode exactly once), each rated."""

    model_config = ConfigDict(extra="ignore", title="record_memory_operations")

    episodes: list[EpisodeOperationsV3] = Field(description="one entry per episode, in order")


_SYSTEM_V1 = """\
You maintain the long-term memory of an assistant about one user. You read conversation \
episodes and decide which facts to remember, as subject-predicate-object triples, and how \
each one changes the memory.

Conventions:
- subject is "user" for what the user says about themself; otherwise the person or thing \
as named ("sister", "best friend", "bob"). A named relative gives user <relation>_name <Name> \
("my sister Anna" -> user sister_name Anna).
- predicate is snake_case: name, age, lives_in, works_at, job_title, studies, speaks, likes, \
dislikes, prefers, diet, allergic_to, has_pet, favorite_<thing>, married_to, uses...
- object is the value as written, without leading articles; counts are digits; pets are \
"<species> named <Name>".
- Only statements of the user count. Assistant turns are context only. Questions, \
hypotheticals, wishes, plans, reported speech and chit-chat give nothing. A plain negation \
("I don't live in Paris") gives nothing, except dislikes ("I don't like X" -> dislikes X).

Operations:
- ADD: a new fact.
- UPDATE: the fact replaces an existing fact (a changed value, a correction); set target_fact \
to the F-reference it replaces.
- DELETE: an existing or stated fact stopped holding ("no longer", "not anymore", "quit", \
"used to"); set target_fact when the fact is listed.
- NOOP: the episode restates a fact already listed (set target_fact); it is reinforced.
- valid_from: the date the fact started, only when the text gives a time ("last month", \
"since 2019"), resolved against the episode's timestamp; else null.
- reason: one short sentence for each operation.

Answer by calling record_memory_operations exactly once. List every episode of the batch, \
in order, each exactly once, with an empty operations list when it gives nothing."""


_SYSTEM_V2 = """\
You maintain the long-term memory of an assistant about one user. You read conversation \
episodes and decide which facts to remember, as subject-predicate-object triples, and how \
each one changes the memory: what starts holding, what stops holding, what is restated.

Conventions:
- subject is "user" for what the user says about themself. A named relative, friend or pet \
is the subject of what is said about them, by name: "my brother Luis is a chef" -> \
Luis job_title chef, and Luis sibling_of user. Later "my brother" means Luis. An unnamed \
one is the subject by relation: "my sister sold her flat" -> sister owns flat (DELETE).
- predicate is snake_case: name, age, lives_in, works_at, job_title, studies, speaks, likes, \
dislikes, prefers, diet, allergic_to, has_pet, owns, plays, practices, favorite_<thing>, \
married_to, dating, parent_of, sibling_of, friend_of, uses...
- object is the value as written, without leading articles; counts are digits; pets are \
"<species> named <Name>".
- Only statements of the user count. Assistant turns are context only. Questions, \
hypotheticals, wishes, plans, reported speech and chit-chat give nothing. A plain negation \
("I don't live in Paris") gives nothing, except dislikes ("I don't like X" -> dislikes X).

Operations:
- ADD: a new fact.
- UPDATE: the fact replaces an existing single-valued fact (a move, a new job, a new \
favourite, a correction); set target_fact to the F-reference it replaces.
- DELETE: a fact stopped holding. Endings: sold or gave away something, left / lost / quit \
a job, retired, broke up or divorced, a person or pet died, moved out, stopped or gave up \
an activity, a language or a habit, finished studies, recovered from an illness, cancelled \
a plan, "no longer", "not ... anymore", "used to". Set target_fact when the fact is listed, \
and valid_from to the date it stopped when the text gives one.
- An ending with a replacement ("I sold my Civic and bought a Tesla") is two operations: \
DELETE the old value and ADD the new one.
- Multi-valued predicates (owns, has_pet, plays, practices, studies, speaks, likes): a new \
value is an ADD and never ends the old one; only an ending does.
- NOOP: the episode restates a fact already listed (set target_fact); it is reinforced.
- valid_from: the date the change happened (a start, or for DELETE the end), only when the \
text gives a time ("last month", "since 2019"), resolved against the episode's timestamp; \
else null.
- reason: one short sentence for each operation.

Answer by calling record_memory_operations exactly once. List every episode of the batch, \
in order, each exactly once, with an empty operations list when it gives nothing.

Example. Existing facts: F1: user owns Honda Civic (valid from 2023-02-01). Episodes: \
[E1] 2024-05-10T09:00:00+00:00 user: "I sold my Civic last week and got a Tesla." \
[E2] 2024-05-10T09:01:00+00:00 user: "Thanks!" Answer: \
{"episodes": [{"episode": "E1", "operations": [\
{"op": "DELETE", "subject": "user", "predicate": "owns", "object": "Honda Civic", \
"target_fact": "F1", "valid_from": "2024-05-03", "reason": "sold it"}, \
{"op": "ADD", "subject": "user", "predicate": "owns", "object": "Tesla", \
"valid_from": "2024-05-03", "reason": "got a new car"}]}, \
{"episode": "E2", "operations": []}]}"""


IMPORTANCE_RULES = """\
Importance: rate every ADD and UPDATE from 1 to 5 by how much the assistant must not forget it:
5 health and safety (allergies, medications, conditions, emergency contacts) or what the user \
asks to be remembered ("remember that", "never forget");
4 identity and family (name, partner, children, birthday), commitments and dates (appointments, \
deadlines, trips);
3 ordinary facts (job, home, preferences, hobbies, possessions);
2 passing details (what they ate today, a one-off errand);
1 small talk.
Rate the fact, not how the user phrased it."""
"""The importance instructions of ``consolidation-v3``, a block any later prompt can add before its
answer instruction (the scale of :data:`~nova_memory_integrations.memory.importance.LEVELS`)."""

_ANSWER = "\n\nAnswer by calling record_memory_operations"
_SYSTEM_V3 = _SYSTEM_V2.replace(_ANSWER, "\n" + IMPORTANCE_RULES + _ANSWER, 1).replace(
    '"reason": "got a new car"}', '"reason": "got a new car", "importance": 3}', 1)


def _render_fact(ref: str, fact: Fact) -> str:
    since = fact.valid_from.date().isoformat()
    until = f" until {fact.valid_to.date().isoformat()}" if fact.valid_to is not None else ""
    return (f"{ref}: {fact.subject} {fact.predicate} {fact.object} "
            f"(valid from {since}{until}, confidence {fact.confidence:.2f})")


def _render_episode(ref: str, episode: Episode) -> str:
    stamp = episode.timestamp.isoformat()
    return f"[{ref}] {stamp} {episode.role}: {json.dumps(episode.content, ensure_ascii=False)}"


def _render_v1(
    episodes: Sequence[tuple[str, Episode]], facts: Sequence[tuple[str, Fact]], feedback: str | None
) -> list[Message]:
    return _render(_SYSTEM_V1, episodes, facts, feedback)


def _render_v2(
    episodes: Sequence[tuple[str, Episode]], facts: Sequence[tuple[str, Fact]], feedback: str | None
) -> list[Message]:
    return _render(_SYSTEM_V2, episodes, facts, feedback)


def _render_v3(
    episodes: Sequence[tuple[str, Episode]], facts: Sequence[tuple[str, Fact]], feedback: str | None
) -> list[Message]:
    return _render(_SYSTEM_V3, episodes, facts, feedback)


def _render(
    system: str, episodes: Sequence[tuple[str, Episode]], facts: Sequence[tuple[str, Fact]], feedback: str | None
) -> list[Message]:
    fact_lines = "\n".join(_render_fact(r, f) for r, f in facts) or "(none)"
    episode_lines = "\n".join(_render_episode(r, e) for r, e in episodes)
    refs = ", ".join(r for r, _ in episodes)
    user = (
        "Existing facts (current beliefs; refer to them by F-reference):\n"
        f"{fact_lines}\n\n"
        "Episodes (oldest first; JSON-quoted text; refer to them by E-reference):\n"
        f"{episode_lines}\n\n"
        f"Record the memory operations for {refs}."
    )
    if feedback:
        user += f"\n\nYour previous answer could not be used: {feedback} Answer again, following the schema."
    return [("system", system), ("user", user)]


Renderer = Callable[[Sequence[tuple[str, Episode]], Sequence[tuple[str, Fact]], "str | None"], list[Message]]


@dataclass(frozen=True)
class PromptSpec:
    """A released prompt: its version, output schema, system text and renderer."""

    version: str
    schema: type[BaseModel]
    system: str
    renderer: Renderer

    def render(
        self,
        episodes: Sequence[tuple[str, Episode]],
        facts: Sequence[tuple[str, Fact]] = (),
        *,
        feedback: str | None = None,
    ) -> list[Message]:
        """Messages for one batch: ``episodes`` and ``facts`` as ``(reference, item)`` pairs."""
        return self.renderer(episodes, facts, feedback)


_PROMPTS: dict[str, PromptSpec] = {
    "consolidation-v1": PromptSpec("consolidation-v1", RecordMemoryOperationsV1, _SYSTEM_V1, _render_v1),
    "consolidation-v2": PromptSpec("consolidation-v2", RecordMemoryOperationsV1, _SYSTEM_V2, _render_v2),
    "consolidation-v3": PromptSpec("consolidation-v3", RecordMemoryOperationsV3, _SYSTEM_V3, _render_v3),
}


def get_prompt(version: str | None = None) -> PromptSpec:
    """The prompt of ``version`` (default: the current one).

    Raises:
        KeyError: unknown version.
    """
    key = version or DEFAULT_PROMPT_VERSION
    if key not in _PROMPTS:
        raise KeyError(f"unknown prompt version {key!r}; known: {sorted(_PROMPTS)}")
    return _PROMPTS[key]


def tool_name(schema: type[BaseModel]) -> str:
    """The function/tool name a schema is exposed under (its JSON-schema title)."""
    return str(schema.model_config.get("title") or schema.__name__)


def json_instruction(schema: type[BaseModel]) -> str:
    """The instruction appended for models without tool calling: reply with bare JSON."""
    return (
        "Reply with only one JSON object (no prose, no code fences) that validates against this JSON schema:\n"
        + json.dumps(schema.model_json_schema(), separators=(",", ":"))
    )


def parse_timestamp(value: str | None) -> datetime | None:
    """An ISO date or datetime from a model as aware UTC (``None`` when absent, invalid or
    outside the safe range of stored times, ``_time.EARLIEST`` .. ``_time.LATEST``)."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        parsed = parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None
    return parsed if in_range(parsed) else None
