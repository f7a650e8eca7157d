"""A deterministic, offline LlamaIndex LLM for tests, cookbooks and demos.

``ExtractiveMemoryLLM`` needs no model and no network: it answers by quoting the line of
its input (retrieved context, ``<memory>`` block, chat history) that shares the most
words with the question, or plays back scripted ``responses``. It goes through the
normal LlamaIndex LLM callbacks, so instrumentation events fire as with a real model.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback

__all__ = ["ExtractiveMemoryLLM"]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does",
    "for", "from", "had", "has", "have", "he", "her", "him", "his", "how", "i", "if", "in", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "they", "this",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would",
    "you", "your", "about", "any", "tell", "know", "now", "still", "like", "just",
})
_NOISE = re.compile(
    r"^(kind|timestamp|valid_from|valid_to|score|id|source):|^(context information|given the context|query:|answer:)"
    r"|^-{3,}|^</?[a-z_]+>$",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"<memory>(.*)</memory>", re.DOTALL)
_QUERY = re.compile(r"Query:\s*(.*?)\s*(?:\nAnswer:|$)", re.DOTALL)


def _words(text: str) -> set[str]:
    # a crude, deterministic stemmer: the first four letters (live/lives/lived, colour/color)
    return {w[:4] for w in _WORD.findall(text.lower()) if w not in _STOP}


def _candidate_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """Lines the answer may quote: everything but system instructions (their memory block excepted).

    Memory blocks escape ``& < >``; quoted lines are unescaped again.
    """
    lines: list[str] = []
    for m in messages:
        text = m.content or ""
        if _role(m) == "system":
            blocks = _MEMORY.findall(text)
            text = "\n".join(blocks)
        lines += [html.unescape(ln).strip(" -*\t") for ln in text.splitlines()]
    return lines


def _role(message: ChatMessage) -> str:
    return message.role.value if isinstance(message.role, MessageRole) else str(message.role)


class ExtractiveMemoryLLM(CustomLLM):
    """Answers from its own input, deterministically; a stand-in for a chat model.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations.testing_llama import ExtractiveMemoryLLM

            llm = ExtractiveMemoryLLM()                                  # extractive
            llm = ExtractiveMemoryLLM(responses=["Hi!", "Noted."])      # scripted, then extractive

    Usage:
        .. code-block:: python

            engine = RetrieverQueryEngine.from_args(retriever=retriever, llm=llm)
            engine.query("where does Alice live?").response   # 'Alice lives in Lisbon.'
            llm.last_messages                                  # what the model was sent

    Args:
        responses: replies played back in order before falling back to extraction.
        prefix: text put before an extracted answer.
        fallback: reply when nothing in the input matches the question.
        is_chat: whether LlamaIndex should treat it as a chat model.
    """

    responses: list[str] = Field(default_factory=list, description="Scripted replies, used first.")
    prefix: str = Field(default="", description="Text put before an extracted answer.")
    fallback: str = Field(default="I don't know.", description="Reply when nothing matches.")
    is_chat: bool = Field(default=True, description="Report itself as a chat model.")
    context_window: int = Field(default=8192, description="Context window reported to LlamaIndex.")
    num_output: int = Field(default=256, description="Output tokens reported to LlamaIndex.")

    _calls: int = PrivateAttr(default=0)
    _last: list[ChatMessage] = PrivateAttr(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "ExtractiveMemoryLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=self.num_output,
                           is_chat_model=self.is_chat, model_name="extractive-memory-llm")

    @property
    def last_messages(self) -> list[ChatMessage]:
        """The messages of the latest call (a completion prompt is one user message)."""
        return list(self._last)

    @property
    def calls(self) -> int:
        """How many times the model answered."""
        return self._calls

    def answer(self, messages: Sequence[ChatMessage]) -> str:
        """The reply to ``messages`` (scripted, else extracted)."""
        self._last = list(messages)
        index, self._calls = self._calls, self._calls + 1
        if index < len(self.responses):
            return self.responses[index]
        question = _question(messages)
        wanted = _words(question)
        best, best_score = "", 0
        for line in _candidate_lines(messages):
            if not line or line == question or _NOISE.search(line):
                continue
            score = len(wanted & _words(line))
            if score > best_score:  # first best line wins ties: deterministic
                best, best_score = line, score
        return f"{self.prefix}{best}" if best else self.fallback

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self.answer(messages)))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        text = self.answer(messages)

        def gen() -> ChatResponseGen:
            sofar = ""
            for delta in _deltas(text):
                sofar += delta
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=sofar), delta=delta)

        return gen()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.answer([ChatMessage(role=MessageRole.USER, content=prompt)]))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        text = self.answer([ChatMessage(role=MessageRole.USER, content=prompt)])

        def gen() -> CompletionResponseGen:
            sofar = ""
            for delta in _deltas(text):
                sofar += delta
                yield CompletionResponse(text=sofar, delta=delta)

        return gen()


def _deltas(text: str) -> list[str]:
    words = text.split(" ")
    return [w if i == 0 else " " + w for i, w in enumerate(words)]


def _question(messages: Sequence[ChatMessage]) -> str:
    for m in reversed(messages):
        if _role(m) == "user" and m.content:
            found = _QUERY.findall(m.content)
            return found[-1].strip() if found else m.content.strip()
    return ""
