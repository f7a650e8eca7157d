"""Fake LLMs for consolidation tests and benchmarks (fakes are allowed only for LLMs).

:class:`FakeToolChatModel` is a real LangChain ``BaseChatModel``: ``bind_tools`` binds
OpenAI-format tools like a provider model does, and every call is answered by a
``respond(prompt, tools)`` function returning an ``AIMessage`` (tool calls matching the
``record_memory_operations`` schema, malformed arguments, plain text...) or raising (a
timeout, a rate limit). :func:`parse_prompt` reads back the episodes and facts the
consolidation prompt shows, as a model would.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

__all__ = ["FakeToolChatModel", "Prompt", "gold_responder", "ops_message", "parse_prompt", "scripted_responder"]

TOOL = "record_memory_operations"
_EPISODE = re.compile(r"^\[(E\d+)\] (\S+) (\w+): (.*)$")
_FACT = re.compile(r"^(F\d+): (.*) \(valid from")


@dataclass
class Prompt:
    """What a model sees: episodes ``(ref, timestamp, role, content)``, facts ``ref -> text``."""

    episodes: list[tuple[str, str, str, str]]
    facts: dict[str, str]
    text: str

    def fact_ref(self, text: str) -> str | None:
        """The F-reference of the fact whose ``subject predicate object`` is ``text``."""
        for ref, fact in self.facts.items():
            if fact.lower() == text.lower():
                return ref
        return None


def parse_prompt(messages: Sequence[BaseMessage]) -> Prompt:
    """Read the consolidation prompt like a model would."""
    text = "\n".join(str(m.content) for m in messages)
    episodes, facts = [], {}
    for line in text.splitlines():
        m = _EPISODE.match(line)
        if m:
            episodes.append((m[1], m[2], m[3], json.loads(m[4])))
            continue
        f = _FACT.match(line)
        if f:
            facts[f[1]] = f[2]
    return Prompt(episodes, facts, text)


def ops_message(entries: list[dict[str, Any]] | dict[str, Any], *, call_id: str = "call_1") -> AIMessage:
    """An AIMessage calling the tool with ``{"episodes": entries}`` (or a given payload)."""
    payload = entries if isinstance(entries, dict) else {"episodes": entries}
    return AIMessage(content="", tool_calls=[{"name": TOOL, "args": payload, "id": call_id}])


Responder = Callable[[Prompt, list[dict[str, Any]]], AIMessage]


class FakeToolChatModel(BaseChatModel):
    """A LangChain chat model whose answers come from ``respond``; counts its calls."""

    respond: Any = None
    calls: list[Prompt] = Field(default_factory=list)
    bound_tools: list[dict[str, Any]] = Field(default_factory=list)
    lock: Any = Field(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "fake-tool-calling"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        self.bound_tools = formatted
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = parse_prompt(messages)
        with self.lock:
            self.calls.append(prompt)
        message = self.respond(prompt, kwargs.get("tools") or [])
        return ChatResult(generations=[ChatGeneration(message=message)])


def scripted_responder(script: dict[str, list[dict[str, Any]]]) -> Responder:
    """Answer each episode from ``script[content]`` (ops; ``"target": "s p o"`` -> F-ref)."""

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        entries = []
        for ref, _, _, content in prompt.episodes:
            ops = []
            for op in script.get(content, []):
                op = dict(op)
                target = op.pop("target", None)
                if target is not None:
                    op["target_fact"] = prompt.fact_ref(target)
                ops.append(op)
            entries.append({"episode": ref, "operations": ops})
        return ops_message(entries)

    return respond


def gold_responder(cases: Sequence[Any]) -> Responder:
    """Answer with the gold labels of the labelled case whose turns are in the prompt."""
    by_turns = {tuple(t["content"] for t in c.turns): c for c in cases}

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        case = by_turns[tuple(e[3] for e in prompt.episodes)]
        user_refs = [e[0] for e in prompt.episodes if e[2] == "user"] or [prompt.episodes[-1][0]]
        entries: dict[str, list[dict[str, Any]]] = {e[0]: [] for e in prompt.episodes}
        for i, fact in enumerate(case.expected):  # one fact per user turn when they pair up, else the last turn
            ref = user_refs[i] if len(user_refs) == len(case.expected) else user_refs[-1]
            entries[ref].append({
                "op": "DELETE" if fact.get("op") == "negate" else "ADD",
                "subject": fact["subject"], "predicate": fact["predicate"], "object": fact["object"],
                "valid_from": fact.get("valid_from"), "confidence": 0.9, "reason": "gold label",
            })
        return ops_message([{"episode": ref, "operations": ops} for ref, ops in entries.items()])

    return respond
