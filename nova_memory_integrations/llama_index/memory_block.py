"""LlamaIndex ``Memory`` integration: a memory block and an immediately-capturing memory.

``NovaMemoryBlock`` plugs a ``NovaStore`` into LlamaIndex's ``Memory`` as one block: on
every ``Memory.get`` it contributes the budgeted memory context for the latest user
message (``Memory`` renders it into the system message inside ``<memory>`` tags, so the
block leaves out the ``<memory>`` wrapper of :meth:`NovaStore.context`'s text), and it
stores the messages ``Memory`` flushes out of its short-term queue.

``Memory`` only flushes messages to blocks once its queue exceeds the token limit, so
with a plain ``Memory`` a new fact reaches long-term memory late. ``NovaLlamaMemory``
(or :func:`nova_memory`) is a ``Memory`` that also writes every ``put`` to the store
right away, so the next turn (or the next session) can already recall it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr, model_validator
from llama_index.core.memory import BaseMemoryBlock, Memory

from ..consolidation.by_model import DEFAULT_IDLE_SECONDS, ConsolidatesWithModel, ModelConsolidation
from ..engine.validation import model_input, require_store
from ..retrieval.assemble import fit, render
from ..types import ContextFormat, ContextItem
from ._convert import message_role, message_text, messages_to_turns

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["NovaLlamaMemory", "NovaMemoryBlock", "nova_memory"]

logger = logging.getLogger(__name__)

_DEFAULT_ROLES = ("user", "assistant")


class NovaMemoryBlock(ConsolidatesWithModel, BaseMemoryBlock[str]):
    """A LlamaIndex memory block backed by a user's ``NovaStore`` memory.

    ``_aget`` returns ``store.context(<latest user message>, user_id).text`` (empty when
    nothing is relevant, so ``Memory`` adds nothing), minus the turns already in the
    chat history it is given (the LLM sees those anyway); ``_aput`` stores the messages
    with text whose role is in ``capture_roles`` as episodes. When ``Memory`` must
    shrink the block (only with ``priority`` > 0) the least relevant items go first.
    Store failures are logged and ignored, so a chat never breaks because of memory.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from llama_index.core.memory import Memory
            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.llama_index import NovaMemoryBlock

            store = NovaStore("./memory")
            block = NovaMemoryBlock(store, user_id="alice", budget_tokens=400)
            memory = Memory.from_defaults(session_id="s1", memory_blocks=[block], token_limit=4000)

    Usage:
        .. code-block:: python

            memory.put(ChatMessage(role="user", content="I moved to Porto."))
            messages = memory.get(input="where do I live?")
            messages[0].content   # system message: <memory><nova_memory>...</nova_memory></memory>

            # agents take the memory directly
            await agent.run("where do I live?", memory=memory)

    Args:
        store: the memory engine.
        user_id: whose memory to read and write.
        session_id: session recorded on stored turns (default: the ``Memory``'s session).
        budget_tokens: token budget of the context block.
        context_format: ``markdown``, ``json``, ``xml`` or ``plain``.
        preset: retrieval preset passed to :meth:`NovaStore.context`.
        capture_roles: roles of the messages stored by ``_aput``.
        raise_on_error: re-raise store errors instead of logging them.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(default="nova_memory", description="Name of the block (its tag in the system message).")
    description: str | None = Field(default="Long-term memory about the user from past conversations.")
    store: Any = Field(exclude=True, description="The NovaStore.")
    user_id: str = Field(min_length=1, description="Whose memory to read and write.")
    session_id: str | None = Field(default=None, description="Session recorded on stored turns.")
    budget_tokens: int = Field(default=500, gt=0, description="Token budget of the context.")
    context_format: ContextFormat = Field(default="markdown", description="Format of the context text.")
    preset: str | None = Field(default=None, description="Retrieval preset for NovaStore.context.")
    capture_roles: tuple[str, ...] = Field(default=_DEFAULT_ROLES, description="Roles of stored messages.")
    raise_on_error: bool = Field(default=False, description="Re-raise store errors.")
    consolidation_model: Any = Field(
        default=None, exclude=True,
        description="An LLM (LlamaIndex or LangChain) that consolidates the stored turns in the background, "
        "batched; opt-in (turns are then stored unconsolidated). See flush_consolidation().",
    )
    consolidation_batch_turns: int | None = Field(
        default=None, gt=0, description="New turns of the user that start a consolidation run (None: llm_batch_size)."
    )
    consolidation_idle_seconds: float = Field(
        default=DEFAULT_IDLE_SECONDS, ge=0, description="A run starts this long after the last turn (0: never by time)."
    )

    _last: tuple[str, list[ContextItem]] = PrivateAttr(default=("", []))
    _by_model: ModelConsolidation | None = PrivateAttr(default=None)

    def __init__(self, store: Any = None, /, **data: Any) -> None:
        if store is not None:
            data["store"] = store
        if data.get("store") is not None:
            from ..store import NovaStore

            data["store"] = require_store(data["store"], NovaStore, type(self).__name__)
        with model_input(type(self).__name__):
            super().__init__(**data)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = _latest_query(messages or [])
        if not query:
            return ""
        try:
            result = await asyncio.to_thread(
                self.store.context, query, self.user_id, budget_tokens=self.budget_tokens,
                format=self.context_format, preset=self.preset,
            )
        except Exception as exc:
            if self.raise_on_error:
                raise
            logger.warning("nova-memory: memory context for %s failed, continuing without it: %s", self.user_id, exc)
            return ""
        seen = [_norm(message_text(m)) for m in messages or [] if message_role(m) != "system"]
        items = [i for i in result.sources if not (i.kind == "episode" and _in_history(_norm(i.text), seen))]
        text = _unwrapped(str(result.text) if len(items) == len(result.sources) else render(items, self.context_format))
        self._last = (text, items)
        return text

    async def _aput(self, messages: list[ChatMessage]) -> None:
        turns = messages_to_turns(messages, self.user_id, session_id=self.session_id, roles=self.capture_roles,
                                  source="llama_index.memory_block")
        by_model = self._model_consolidation()
        stored = await _store_turns(self.store, turns, self.raise_on_error,
                                    consolidation="manual" if by_model is not None else None)
        if by_model is not None and stored:
            by_model.captured(self.user_id, len(turns))

    def _model_consolidation(self) -> ModelConsolidation | None:
        if self.consolidation_model is None:
            return None
        if self._by_model is None:
            store = self.store
            self._by_model = ModelConsolidation.build(
                self.consolidation_model, store.config.consolidation,
                lambda user, llm: store.consolidate(user, llm=llm),
                batch_turns=self.consolidation_batch_turns, idle_seconds=self.consolidation_idle_seconds,
            )
        return self._by_model

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """The context re-packed ``tokens_to_truncate`` tokens smaller (least relevant items out).

        Content this block did not produce last is dropped entirely (``None``).
        """
        if tokens_to_truncate <= 0:
            return content
        text, items = self._last
        if content != text or not items:
            return None
        try:
            counter = self.store.token_counter
            target = counter.count(content) - tokens_to_truncate
            if target < 1:
                return None
            smaller, _, kept, _ = fit(items, self.context_format, target, counter)
        except Exception as exc:
            logger.warning("nova-memory: shrinking the memory context failed, dropping it: %s", exc)
            return None
        return _unwrapped(smaller) if kept else None


def _unwrapped(text: str) -> str:
    """The context without its own ``<memory>`` wrapper: ``Memory`` wraps every block in one."""
    head, tail = "<memory>\n", "\n</memory>"
    return text[len(head):-len(tail)] if text.startswith(head) and text.endswith(tail) else text


class NovaLlamaMemory(Memory):
    """A LlamaIndex ``Memory`` that also stores every message in a ``NovaStore`` at once.

    Use :meth:`from_store` (or :func:`nova_memory`). It carries a :class:`NovaMemoryBlock`
    for recall; that block is told not to store flushed messages again, so each message
    is captured exactly once. ``set``/``aset`` (replacing the chat history wholesale) is
    not captured.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.llama_index import NovaLlamaMemory

            store = NovaStore("./memory")
            memory = NovaLlamaMemory.from_store(store, "alice", session_id="monday", budget_tokens=400)

    Usage:
        .. code-block:: python

            memory.put(ChatMessage(role="user", content="I moved to Porto."))   # stored now
            memory.get(input="where do I live?")[0].content                     # has the memory block

            agent = FunctionAgent(tools=[...], llm=my_llm)
            await agent.run("where do I live?", memory=memory)
    """

    nova_store: Any = Field(default=None, exclude=True, description="The NovaStore written on every put.")
    nova_user_id: str | None = Field(default=None, description="Whose memory receives the messages.")
    nova_capture_roles: tuple[str, ...] = Field(default=_DEFAULT_ROLES, description="Roles of captured messages.")
    nova_raise_on_error: bool = Field(default=False, description="Re-raise store errors.")

    @model_validator(mode="after")
    def _no_double_capture(self) -> NovaLlamaMemory:
        self._claim_blocks()
        return self

    def _claim_blocks(self) -> None:
        for block in self.memory_blocks:
            if (isinstance(block, NovaMemoryBlock) and block.store is self.nova_store
                    and block.user_id == self.nova_user_id):
                block.accept_short_term_memory = False

    @classmethod
    def from_store(
        cls,
        store: NovaStore,
        user_id: str,
        *,
        session_id: str | None = None,
        budget_tokens: int = 500,
        context_format: ContextFormat = "markdown",
        preset: str | None = None,
        capture_roles: Sequence[str] = _DEFAULT_ROLES,
        block_name: str = "nova_memory",
        memory_blocks: Sequence[BaseMemoryBlock[Any]] = (),
        token_limit: int = 30000,
        raise_on_error: bool = False,
        **memory_kwargs: Any,
    ) -> NovaLlamaMemory:
        """A capturing memory for ``user_id`` with a :class:`NovaMemoryBlock` first.

        Args:
            store: the memory engine.
            user_id: whose memory to read and write.
            session_id: the ``Memory`` session key, also recorded on captured turns
                (default: a random id, as with ``Memory.from_defaults``).
            budget_tokens: token budget of the memory block.
            context_format: format of the memory block.
            preset: retrieval preset for :meth:`NovaStore.context`.
            capture_roles: roles of the messages captured.
            block_name: name of the memory block (its tag in the system message).
            memory_blocks: further LlamaIndex memory blocks.
            token_limit: ``Memory`` token limit of the short-term queue + blocks.
            raise_on_error: re-raise store errors instead of logging them.
            **memory_kwargs: any other ``Memory.from_defaults`` argument.
        """
        block = NovaMemoryBlock(store, name=block_name, user_id=user_id, budget_tokens=budget_tokens,
                                context_format=context_format, preset=preset, capture_roles=tuple(capture_roles),
                                raise_on_error=raise_on_error, accept_short_term_memory=False)
        memory = cls.from_defaults(session_id=session_id, memory_blocks=[block, *memory_blocks],
                                   token_limit=token_limit, **memory_kwargs)
        assert isinstance(memory, NovaLlamaMemory)
        memory.nova_store = store
        memory.nova_user_id = user_id
        memory.nova_capture_roles = tuple(capture_roles)
        memory.nova_raise_on_error = raise_on_error
        memory._claim_blocks()
        return memory

    async def _capture(self, messages: Sequence[ChatMessage]) -> None:
        if self.nova_store is None or not self.nova_user_id:
            return
        turns = messages_to_turns(messages, self.nova_user_id, session_id=self.session_id,
                                  roles=self.nova_capture_roles, source="llama_index.memory")
        await _store_turns(self.nova_store, turns, self.nova_raise_on_error)

    async def aput(self, message: ChatMessage) -> None:
        """Add a message to the chat history and store it in long-term memory now."""
        await super().aput(message)
        await self._capture([message])

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        """Add messages to the chat history and store them in long-term memory now."""
        await super().aput_messages(messages)
        await self._capture(messages)


def nova_memory(store: NovaStore, user_id: str, **kwargs: Any) -> NovaLlamaMemory:
    """Shorthand for :meth:`NovaLlamaMemory.from_store` (same arguments)."""
    return NovaLlamaMemory.from_store(store, user_id, **kwargs)


def _latest_query(messages: Sequence[ChatMessage]) -> str:
    """Text of the latest user message, else of the latest message with text."""
    for m in reversed(messages):
        if message_role(m) == "user" and message_text(m):
            return message_text(m)
    for m in reversed(messages):
        if message_role(m) != "system" and message_text(m):
            return message_text(m)
    return ""


async def _store_turns(
    store: Any, turns: list[dict[str, Any]], raise_on_error: bool, *, consolidation: str | None = None
) -> bool:
    """Store ``turns`` off the event loop; whether they were stored (failures warn, never raise
    unless ``raise_on_error``)."""
    if not turns:
        return False
    try:
        await asyncio.to_thread(store.add_turns, turns, consolidation=consolidation)
    except Exception as exc:
        if raise_on_error:
            raise
        logger.warning("nova-memory: storing %d message(s) failed, continuing: %s", len(turns), exc)
        return False
    return True


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _in_history(item_text: str, history: Sequence[str]) -> bool:
    """Whether a (possibly shortened) memory is one of the chat history's messages."""
    if "…" not in item_text:
        return item_text in history
    parts = [p.strip() for p in item_text.split("…") if p.strip()]  # extractive compression joins with " … "
    return bool(parts) and any(all(p in h for p in parts) for h in history)
