"""LLM extraction and ADD / UPDATE / DELETE / NOOP decisions, with repair, retries and backoff.

:class:`LLMExtractor` sends a batch of episodes with the existing facts relevant to them
to a chat model (one structured-output call for the whole batch; prompts and schemas in
:mod:`.prompts`) and turns the answer into proposals for the
consolidator. Robustness, in order:

1. *Repair*: malformed JSON (code fences, trailing commas, Python literals, single
   quotes, truncation) is repaired; near-miss values (``"add"``, ``"0.9"``, ``1``) are
   coerced by the schema's lenient validators; the usual alternative shapes (a flat
   list of operations, several tool calls) are accepted.
2. *Partial answers*: episodes missing from the answer, or whose entry is invalid, are
   asked again — only those — with a note saying what was wrong.
3. *Retries with backoff*: timeouts, rate limits and other errors are retried up to
   ``max_retries`` times, waiting ``backoff * 2**n`` seconds (capped; a rate limit's
   ``retry_after`` is honoured up to the cap).
4. What still has no valid answer is returned as failed. When the model did answer but
   nothing usable came of it (``BatchPlan.unusable``), the consolidator hands those episodes
   to the deterministic extractor (``consolidation.llm_fallback``); when the calls
   themselves failed (timeouts, server errors), it leaves them unprocessed and records a
   dead letter, since the same model may well answer later. Nothing is ever half-applied.

It also implements the :class:`~nova_memory_integrations.extraction.base.Extractor`
protocol (``extract``) and the batch-extractor interface (``extract_batch``), so the
labelled set can score any LLM through this same code path.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from .._time import utcnow
from ..config import ConsolidationConfig
from ..errors import ConfigError, ConsolidationError
from ..memory.facts import normalize_predicate
from ..memory.importance import LEVELS
from ..text.roles import GENERIC_ROLES
from ..types import Episode, Fact
from .base import CandidateFact
from .llms import LLMReply, StructuredLLM, as_structured_llm
from .prompts import EpisodeOperationsV1, MemoryOperationV1, PromptSpec, get_prompt, parse_timestamp
from .proposals import BatchPlan, Proposal

__all__ = ["LLMExtractor", "repair_json"]

_FIRST_PERSON = frozenset({"i", "me", "myself", "user", "the user", "speaker", "the speaker", "my", "self"})
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*|\s*```$")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_PREDICATE = re.compile(r"^[^\W\d_][^\W_]*(?:[ _-][^\W_]+){0,5}$")
"""A relation as the prompt asks for it (snake_case; spaces or hyphens are normalised away),
at most six words (``favorite_ice_cream_flavor``), no punctuation or markup."""
_MARKUP = re.compile(r'["<>{}\[\]|*=\\]')
"""Characters no name of a person or thing holds: quotes, brackets, markup."""
MAX_SUBJECT_CHARS = 80
"""Longer "subjects" are sentences a model copied, not a person or thing."""
MAX_OBJECT_CHARS = 200
"""Longer "objects" are copied text, not a value."""


def _balance(text: str) -> str:
    """Close an unterminated string and unbalanced brackets (truncated output)."""
    structural, in_str = _outside_strings(text)
    stack: list[str] = []
    for _, ch in structural:
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack and stack[-1] == ch:
            stack.pop()
    out = text + ('"' if in_str else "")
    out = re.sub(r"[,:\s]+$", "", out)
    return out + "".join(reversed(stack))


def _cut_last_element(text: str) -> str | None:
    """Drop everything after the last top-level-or-nested comma outside strings."""
    last = max((i for i, ch in _outside_strings(text)[0] if ch == ","), default=-1)
    return text[:last] if last > 0 else None


def _outside_strings(text: str) -> tuple[list[tuple[int, str]], bool]:
    """The ``(index, char)`` of JSON text outside string literals (quotes excluded), and
    whether the text ends inside an unterminated string."""
    out: list[tuple[int, str]] = []
    in_str = escaped = False
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        else:
            out.append((i, ch))
    return out, in_str


def repair_json(text: str) -> tuple[Any, bool]:
    """Parse a model's almost-JSON; returns ``(value, truncated)``.

    ``truncated`` is True when the end of the text had to be cut to parse, in which case
    the last element may be incomplete and should not be trusted.

    Raises:
        ValueError: the text cannot be repaired.
    """
    s = _FENCE.sub("", text.strip()).strip()
    starts = [i for i in (s.find("{"), s.find("[")) if i >= 0]
    if starts:
        s = s[min(starts):]
    fixed = _TRAILING_COMMA.sub(r"\1", s)
    fixed = re.sub(r"\b(True|False|None)\b", lambda m: _PY_LITERALS[m.group(1)], fixed)
    if '"' not in fixed and "'" in fixed:
        fixed = fixed.replace("'", '"')
    for candidate in (s, fixed):
        try:
            return json.loads(candidate), False
        except ValueError:
            continue
    try:  # closing what was left open means the end was cut off
        return json.loads(_TRAILING_COMMA.sub(r"\1", _balance(fixed))), True
    except ValueError:
        pass
    cut: str | None = fixed
    for _ in range(64):  # truncated mid-element: drop the incomplete tail and close what is open
        cut = _cut_last_element(cut) if cut else None
        if cut is None:
            break
        try:
            return json.loads(_TRAILING_COMMA.sub(r"\1", _balance(cut))), True
        except ValueError:
            continue
    raise ValueError("model output is not JSON and could not be repaired")


def _entries(data: Any) -> list[Any]:
    """The per-episode entries of an answer, whatever shape the model chose."""
    if isinstance(data, list):
        if all(isinstance(d, dict) and "episodes" in d for d in data):
            return [e for d in data for e in (d["episodes"] or [])]
        if all(isinstance(d, dict) and "operations" in d for d in data):
            return list(data)
        if all(isinstance(d, dict) and "op" in d for d in data):
            return _group_flat(data)
        return list(data)
    if isinstance(data, dict):
        if isinstance(data.get("episodes"), list):
            return list(data["episodes"])
        if isinstance(data.get("operations"), list):
            if "episode" in data:
                return [data]
            return _group_flat(data["operations"])
    raise ValueError(f"unexpected answer shape: {type(data).__name__}")


def _group_flat(ops: list[Any]) -> list[Any]:
    grouped: dict[str, list[Any]] = {}
    for op in ops:
        ref = op.get("episode") if isinstance(op, dict) else None
        if ref is None:
            raise ValueError("flat operation without an episode reference")
        grouped.setdefault(str(ref), []).append(op)
    return [{"episode": ref, "operations": ops_} for ref, ops_ in grouped.items()]


class LLMExtractor:
    """Consolidation source backed by a chat model (structured output, batched).

    Setup:
        .. code-block:: bash

            pip install "nova-memory-integrations[openai]"   # langchain-openai

    Instantiate:
        .. code-block:: python

            from langchain_openai import ChatOpenAI
            from nova_memory_integrations.extraction.llm import LLMExtractor

            extractor = LLMExtractor(ChatOpenAI(model="gpt-4o-mini"), batch_size=10)

    Usage:
        .. code-block:: python

            store = NovaStore("./memory", llm=ChatOpenAI(model="gpt-4o-mini"))  # built for you
            store.consolidate("alice", llm=extractor)                            # or passed per call
            extractor.extract("I moved to Lisbon last month.", timestamp=now)    # Extractor protocol

    Args:
        llm: a LangChain chat model, a LlamaIndex LLM or a :class:`StructuredLLM`.
        batch_size: episodes per call.
        max_retries: extra calls after the first for one batch (errors, bad or partial answers).
        backoff: first wait in seconds; doubles per retry up to ``max_backoff``.
        prompt_version: a version known to :func:`~nova_memory_integrations.extraction.prompts.get_prompt`.
        sleep: the wait function (tests pass a recorder).
    """

    needs_context = True

    def __init__(
        self,
        llm: Any,
        *,
        batch_size: int = 10,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        prompt_version: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.llm: StructuredLLM = as_structured_llm(llm)
        self.batch_size: int | None = batch_size
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        try:
            self.prompt: PromptSpec = get_prompt(prompt_version)
        except KeyError as exc:
            raise ConfigError(str(exc.args[0])) from exc
        self._sleep = sleep
        self.calls = 0
        """LLM calls made so far (including failed ones)."""

    @classmethod
    def from_config(cls, llm: Any, config: ConsolidationConfig) -> LLMExtractor:
        """Build from the ``[consolidation]`` config section."""
        return cls(llm, batch_size=config.llm_batch_size, max_retries=config.max_retries,
                   backoff=config.retry_backoff_seconds, max_backoff=config.retry_backoff_max_seconds,
                   prompt_version=config.prompt_version)

    # -- the consolidation source -----------------------------------------------------------
    def plan(self, user_id: str, episodes: Sequence[Episode], related: Sequence[Fact]) -> BatchPlan:
        """Ask the model about ``episodes`` (given ``related`` facts); never raises for model failures."""
        refs = {f"E{i + 1}": ep for i, ep in enumerate(episodes)}
        fact_refs = {f"F{i + 1}": f for i, f in enumerate(related)}
        pending = list(refs)
        done: dict[str, list[Proposal]] = {}
        last_error = "no answer"
        feedback: str | None = None
        wait_hint: float | None = None
        calls = 0
        answered_last = False  # the last call got an answer (usable or not), not an error
        for attempt in range(self.max_retries + 1):
            if not pending:
                break
            if attempt:
                self._sleep(self._delay(attempt, wait_hint))
            wait_hint = None
            messages = self.prompt.render([(r, refs[r]) for r in pending], list(fact_refs.items()), feedback=feedback)
            calls += 1
            self.calls += 1
            try:
                reply = self.llm.invoke_structured(messages, self.prompt.schema)
            except Exception as exc:  # timeouts, rate limits, server errors: retried
                last_error = f"{type(exc).__name__}: {exc}"
                wait_hint = _retry_after(exc)
                feedback = None
                answered_last = False
                continue
            answered_last = True
            answered, problems = self._read(reply, refs, pending, fact_refs)
            for ref, proposals in answered.items():
                done[refs[ref].id] = proposals
            pending = [r for r in pending if r not in answered]
            if pending:
                missing = ", ".join(pending)
                last_error = "; ".join(problems) or f"no valid entry for {missing}"
                feedback = f"{last_error}. Give the entries for {missing}."
        failed = {refs[r].id: f"after {calls} call(s): {last_error}" for r in pending}
        return BatchPlan(done, failed, calls, unusable=set(failed) if answered_last else set())

    def _delay(self, attempt: int, hint: float | None) -> float:
        delay: float = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        if hint is not None:
            delay = max(delay, min(hint, self.max_backoff))
        return delay

    def _read(
        self, reply: LLMReply, refs: dict[str, Episode], pending: Sequence[str], fact_refs: dict[str, Fact]
    ) -> tuple[dict[str, list[Proposal]], list[str]]:
        problems: list[str] = []
        truncated = False
        data = reply.data
        try:
            if data is None:
                data, truncated = repair_json(reply.text or "")
            entries = _entries(data)
        except ValueError as exc:
            return {}, [f"unusable answer ({exc})"]
        if truncated and entries:
            entries = entries[:-1]  # the last entry may have lost operations to the cut
            problems.append("the answer was cut off")
        merged: dict[str, list[MemoryOperationV1]] = {}
        invalid: set[str] = set()
        for raw in entries:
            try:
                entry = EpisodeOperationsV1.model_validate(raw)
            except ValidationError as exc:
                ref = _ref(raw.get("episode")) if isinstance(raw, dict) else None
                if ref is not None:
                    invalid.add(ref)
                problems.append(f"invalid entry {ref or '?'}: {_short(exc)}")
                continue
            if entry.episode not in refs:
                problems.append(f"unknown episode reference {entry.episode}")
                continue
            merged.setdefault(entry.episode, []).extend(entry.operations)
        answered: dict[str, list[Proposal]] = {}
        for ref in pending:
            if ref not in merged or ref in invalid:
                continue
            try:
                answered[ref] = [self._proposal(op, refs[ref], fact_refs) for op in merged[ref]]
            except ValueError as exc:
                problems.append(f"invalid operation in {ref}: {exc}")
        return answered, problems

    def _proposal(self, op: MemoryOperationV1, episode: Episode, fact_refs: dict[str, Fact]) -> Proposal:
        subject = " ".join(html.unescape(op.subject).split())
        if subject.lower() in _FIRST_PERSON:  # a named speaker of a multi-party transcript: "I" is them
            subject = episode.role if episode.role not in GENERIC_ROLES else "user"
        raw_predicate = " ".join(html.unescape(op.predicate).split())
        predicate = normalize_predicate(raw_predicate)
        obj = " ".join(html.unescape(op.object).split())
        if not subject or not predicate or (not obj and op.op != "DELETE"):
            raise ValueError(f"{op.op} needs subject, predicate and object")
        _check_plausible(subject, raw_predicate, obj)
        target = fact_refs.get((op.target_fact or "").strip().upper())
        meta: dict[str, Any] = {"extractor": "llm", "model": self.llm.name, "prompt_version": self.prompt.version}
        if op.importance is not None:
            meta["model_importance"] = op.importance  # the rating as said, whatever wins (FactMemory.apply)
        return Proposal(
            subject=subject, predicate=predicate, object=obj, negate=op.op == "DELETE", op=op.op,
            valid_from=parse_timestamp(op.valid_from), confidence=op.confidence,
            importance=LEVELS[op.importance] if op.importance is not None else None,
            target_fact_id=target.id if target is not None else None,
            reason=f"llm {op.op}: {op.reason}" if op.reason else f"llm {op.op}",
            metadata=meta,
        )

    # -- the Extractor protocol and the batch-extractor interface ------------------------------
    def extract_batch(self, episodes: Sequence[Episode]) -> list[list[CandidateFact]]:
        """Candidate facts per episode, from one batched call (no existing facts given).

        Raises:
            ConsolidationError: the model gave no valid answer for some episode.
        """
        plan = self.plan("", episodes, ())
        if plan.failed:
            raise ConsolidationError(next(iter(plan.failed.values())))
        return [
            [
                CandidateFact(p.subject, p.predicate, p.object, "negate" if p.negate else "assert",
                              0.8 if p.confidence is None else p.confidence, p.valid_from, e.content)
                for p in plan.proposals[e.id]
            ]
            for e in episodes
        ]

    def extract(self, text: str, *, role: str = "user", timestamp: datetime | None = None) -> list[CandidateFact]:
        """Candidate facts of one turn (one call)."""
        now = utcnow()
        episode = Episode(id="ep_extract", user_id="-", role=role, content=text, timestamp=timestamp or now,
                          ingested_at=now)
        return self.extract_batch([episode])[0]


def _check_plausible(subject: str, predicate: str, obj: str) -> None:
    """Refuse what no reading of the prompt gives: copied sentences, punctuation as values.

    Raises:
        ValueError: the operation is implausible (the episode is asked again, then dead-lettered).
    """
    if not any(ch.isalpha() for ch in subject) or len(subject) > MAX_SUBJECT_CHARS or _MARKUP.search(subject):
        raise ValueError(f"implausible subject {subject[:40]!r}")
    if not _PREDICATE.match(predicate):
        raise ValueError(f"implausible predicate {predicate[:40]!r} (snake_case, at most six words)")
    if obj and (not any(ch.isalnum() for ch in obj) or len(obj) > MAX_OBJECT_CHARS):
        raise ValueError(f"implausible object {obj[:40]!r}")


def _ref(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"E{value}"
    if isinstance(value, str) and value.strip():
        text = value.strip().upper()
        return f"E{text}" if text.isdigit() else text
    return None


def _retry_after(exc: BaseException) -> float | None:
    """A rate limit's requested wait: ``exc.retry_after`` or a ``Retry-After`` header."""
    value = getattr(exc, "retry_after", None)
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if value is None and headers is not None and hasattr(headers, "get"):
        value = headers.get("retry-after")
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _short(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid"
    loc = ".".join(str(p) for p in errors[0]["loc"])
    return f"{loc}: {errors[0]['msg']}"
