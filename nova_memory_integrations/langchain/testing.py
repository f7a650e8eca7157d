"""Deterministic fake chat models for tests and notebooks (no network, no API key).

``EchoMemoryChatModel`` answers questions by quoting the memory it finds in its system
prompt (the ``<nova-memory>`` section written by ``NovaMemory``, or any memory block
rendered by ``store.context``), so a notebook can show a memory-using answer without an
LLM. ``FakeToolChatModel`` additionally calls a tool once per user turn, to exercise
agent tool loops. Both record every message list they receive.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field, PrivateAttr

__all__ = ["EchoMemoryChatModel", "FakeToolChatModel", "MemoryLine", "parse_memory"]

_XML_FACT = re.compile(r'<fact id="([^"]+)"([^>]*)>(.*?)</fact>')
_XML_TURN = re.compile(r'<turn id="([^"]+)"[^>]*>(.*?)</turn>')
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_MD_FACT = re.compile(r"^- (.+?) \(valid from ([\d?-]+)(?: until ([\d-]+))?(?:, confidence [\d.]+)?\)$")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "have", "how", "i",
    "in", "is", "it", "me", "my", "of", "on", "or", "our", "tell", "that", "the", "this", "to", "was", "we",
    "what", "when", "where", "which", "who", "why", "with", "you", "your",
})


class MemoryLine:
    """One memory found in a system prompt: a fact or a past turn, with its id and dates."""

    __slots__ = ("id", "kind", "text", "valid_from", "valid_to")

    def __init__(self, kind: str, text: str, id: str | None = None,
                 valid_from: str | None = None, valid_to: str | None = None) -> None:
        self.kind = kind
        self.text = text
        self.id = id
        self.valid_from = valid_from
        self.valid_to = valid_to

    def cite(self) -> str:
        """The line as quoted in an answer: text plus id and validity."""
        where = [f"{self.kind} {self.id}" if self.id else self.kind]
        if self.valid_from:
            where.append(f"since {self.valid_from}")
        if self.valid_to:
            where.append(f"until {self.valid_to}")
        return f"{self.text} [{', '.join(where)}]"

    def __repr__(self) -> str:
        return f"MemoryLine({self.kind!r}, {self.text!r}, id={self.id!r})"


def parse_memory(system_text: str) -> list[MemoryLine]:
    """Facts and turns of a memory block (XML or markdown/plain format of ``store.context``)."""
    lines: list[MemoryLine] = []
    for mem_id, attrs, text in _XML_FACT.findall(system_text):
        found = dict(_ATTR.findall(attrs))
        lines.append(MemoryLine("fact", html.unescape(text), mem_id, found.get("valid_from"), found.get("valid_to")))
    for mem_id, text in _XML_TURN.findall(system_text):
        lines.append(MemoryLine("turn", html.unescape(text), mem_id))
    if lines:
        return lines
    for raw in system_text.splitlines():
        match = _MD_FACT.match(raw.strip())
        if match:
            lines.append(MemoryLine("fact", html.unescape(match.group(1)), None, match.group(2), match.group(3)))
    return lines


def _stem(word: str) -> str:
    """A crude stemmer: ``works`` / ``worked`` / ``working`` -> ``work``."""
    word = word.replace("favourite", "favorite").replace("colour", "color")
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word  # live / lives / lived -> liv


def _terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


class EchoMemoryChatModel(BaseChatModel):
    """A deterministic chat model that answers from the memory in its system prompt.

    For a question (a user message ending in ``?``) it quotes the memory lines sharing
    the most words with it: facts when any match (past turns otherwise), currently valid
    and newer ones first: ``"From memory: user favorite color green [fact fa_…, since
    2025-01-02]"``. With no matching memory it says so; other messages are acknowledged
    (``"Noted: …"``). Every call's messages are recorded in :attr:`received`.

    Setup:
        .. code-block:: python

            from nova_memory_integrations.testing import EchoMemoryChatModel

    Instantiate:
        .. code-block:: python

            model = EchoMemoryChatModel()

    Usage:
        .. code-block:: python

            agent = create_agent(model, [], middleware=[NovaMemory(store, user_id="alice")])
            agent.invoke({"messages": [{"role": "user", "content": "What is my favorite color?"}]})
            model.received[-1][0].content      # the system prompt the model saw
    """

    max_quotes: int = 2
    """How many memory lines an answer quotes at most."""

    _received: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "nova-echo-memory"

    @property
    def received(self) -> list[list[BaseMessage]]:
        """The message lists of every call so far, oldest first (a copy)."""
        with self._lock:
            return [list(batch) for batch in self._received]

    def system_prompts(self) -> list[str]:
        """The system prompt text of every call so far (empty string when none)."""
        return ["\n".join(str(m.text) for m in batch if isinstance(m, SystemMessage)) for batch in self.received]

    def reset(self) -> None:
        """Forget the recorded calls."""
        with self._lock:
            self._received.clear()

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tools (they are not needed to answer); returns the model itself."""
        return self

    def answer(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """The deterministic reply to ``messages`` (no recording)."""
        question = next((str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        if not question.strip().endswith("?"):
            return AIMessage(content=f"Noted: {question.strip()}")
        system = "\n".join(str(m.text) for m in messages if isinstance(m, SystemMessage))
        quotes = self._best(parse_memory(system), question)
        tool_notes = [str(m.text) for m in _after_last_human(messages) if isinstance(m, ToolMessage)]
        parts = []
        if quotes:
            parts.append("From memory: " + "; ".join(line.cite() for line in quotes))
        if tool_notes:
            parts.append("Tool said: " + "; ".join(tool_notes))
        return AIMessage(content=" ".join(parts) if parts else "I don't have that in memory.")

    def _best(self, lines: Sequence[MemoryLine], question: str) -> list[MemoryLine]:
        wanted = _terms(question)
        scored = [(n, line) for line in lines if (n := len(wanted & _terms(line.text))) > 0]
        if any(line.kind == "fact" for _, line in scored):  # facts answer; past turns only as a fallback
            scored = [(n, line) for n, line in scored if line.kind == "fact"]
        scored.sort(key=lambda p: (p[1].valid_from or "").replace("?", ""), reverse=True)  # newest first...
        scored.sort(key=lambda p: (-p[0], p[1].valid_to is not None))  # ...within equal overlap, valid first
        return [line for _, line in scored[: self.max_quotes]]

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        return self.answer(messages)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._received.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop)


class FakeToolChatModel(EchoMemoryChatModel):
    """:class:`EchoMemoryChatModel` that first calls a tool once per user turn.

    When the latest user message contains ``trigger`` (any message if ``None``) and no
    tool result followed it yet, the reply is a tool call ``tool_name(**tool_args)``;
    after the tool answered, the reply is the echo answer (quoting memory and the tool).

    Setup:
        .. code-block:: python

            from nova_memory_integrations.testing import FakeToolChatModel

    Instantiate:
        .. code-block:: python

            model = FakeToolChatModel(tool_name="get_weather", tool_args={"city": "Paris"})

    Usage:
        .. code-block:: python

            agent = create_agent(model, [get_weather], middleware=[NovaMemory(store, user_id="alice")])
    """

    tool_name: str
    tool_args: dict[str, Any] = Field(default_factory=dict)
    trigger: str | None = None

    _calls: int = PrivateAttr(default=0)

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        question = next((str(m.text) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        answered = any(isinstance(m, ToolMessage) for m in _after_last_human(messages))
        if not answered and (self.trigger is None or self.trigger.lower() in question.lower()):
            with self._lock:
                self._calls += 1
                call_id = f"call_{self._calls}"
            return AIMessage(content="", tool_calls=[{"name": self.tool_name, "args": dict(self.tool_args),
                                                      "id": call_id, "type": "tool_call"}])
        return self.answer(messages)


def _after_last_human(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    return list(messages[last + 1 :])

