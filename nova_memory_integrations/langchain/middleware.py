"""``NovaMemory``: long-term memory for ``create_agent`` agents as one middleware."""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, get_args

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    PrivateStateAttr,
)
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime
from typing_extensions import NotRequired

from ..config import ConsolidationMode
from ..errors import InvalidInputError
from ..retrieval.assemble import Format
from ..store import NovaStore
from ._convert import is_stored_episode, message_text, message_to_turn
from ._shared import shared_store, warn_failure

__all__ = ["MEMORY_SECTION_END", "MEMORY_SECTION_START", "NovaMemory", "NovaMemoryState", "render_memory_section"]

logger = logging.getLogger(__name__)

MEMORY_SECTION_START = "<nova-memory>"
MEMORY_SECTION_END = "</nova-memory>"
_SECTION_RE = re.compile(re.escape(MEMORY_SECTION_START) + r".*?" + re.escape(MEMORY_SECTION_END), re.S)
_STATE_KEY = "nova_memory_captured"
_CACHE_SIZE = 256


class NovaMemoryState(AgentState[Any]):
    """Agent state with NovaMemory's private capture watermark.

    ``nova_memory_captured`` is the id of the last message already recorded, so a tool loop
    (several model calls in one run) and a checkpointed thread capture each message once.
    It is private: not part of the agent's input or output schema.
    """

    nova_memory_captured: NotRequired[Annotated[str | None, PrivateStateAttr]]


class NovaMemory(AgentMiddleware[NovaMemoryState, Any, Any]):
    """Agent middleware that recalls long-term memory into the prompt and records each turn.

    Before every model call the memory context for the latest user message
    (``store.context(...)``, within ``budget_tokens``) is put into the system prompt, in
    its own ``<nova-memory>`` section that replaces the previous one instead of piling up.
    After every model call the new user and assistant messages (and tool results with
    ``capture_tools=True``) are recorded as episodes of ``user_id``, and consolidation
    runs per ``consolidation``. Each message is recorded once, also across the several
    model calls of a tool loop. Memory failures are logged as warnings; the agent goes on.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations langchain

    Instantiate:
        .. code-block:: python

            from langchain.agents import create_agent
            from nova_memory_integrations.langchain import NovaMemory

            memory = NovaMemory(user_id="alice")                  # shared store at the default path
            memory = NovaMemory(store, user_id="alice", budget_tokens=500, consolidation="immediate")
            agent = create_agent(model, tools, middleware=[memory])

    Usage:
        .. code-block:: python

            agent.invoke({"messages": [{"role": "user", "content": "I live in Paris."}]},
                         {"configurable": {"thread_id": "s1"}})
            # later, any thread: the system prompt holds the fact "user lives in Paris"
            agent.invoke({"messages": [{"role": "user", "content": "Where do I live?"}]},
                         {"configurable": {"thread_id": "s2"}})

    The session of a captured turn is ``session_id`` when given, else the LangGraph
    ``thread_id`` of the run. Recall is across all sessions of the user.

    Async: ``awrap_model_call`` / ``aafter_model`` run the same code as the sync hooks and
    call the (synchronous) engine directly on the event loop, without an executor. Capture
    is a SQLite insert (embedding and background consolidation run on the store's own
    threads): well under a millisecond at p50. Recall embeds the query, searches and
    reranks: roughly 50-200 ms p50 on a 2-core CPU depending on memory size and load,
    during which the event loop is blocked (a tool loop's later model calls reuse the
    recall of the same user message: ~0.1 ms). Numbers: ``benchmarks/middleware_overhead.py``.
    ``consolidation="immediate"`` runs extraction inline on capture and is meant for tests
    and demos.

    Args:
        store: the ``NovaStore``; ``None`` opens the process-wide store at the default path
            (``$NOVA_MEMORY_HOME`` or ``~/.nova-memory``) on first use.
        user_id: whose memory this is (all reads and writes are scoped to it).
        session_id: session recorded on captured turns; default: the run's ``thread_id``.
        budget_tokens: token budget of the recalled memory (the section markers add ~10).
        consolidation: ``"background"`` (default), ``"immediate"`` or ``"manual"``; passed
            to ``store.add_turns``.
        capture_tools: also record tool results as ``tool`` turns.
        context_format: format of the recalled memory (``store.context(format=...)``);
            the default ``"xml"`` names each memory's id, dates, validity and confidence,
            so the model (and a reviewer) can tell where a statement came from.
    """

    state_schema = NovaMemoryState

    def __init__(
        self,
        store: NovaStore | None = None,
        *,
        user_id: str,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        consolidation: ConsolidationMode = "background",
        capture_tools: bool = False,
        context_format: Format = "xml",
    ) -> None:
        super().__init__()
        if not isinstance(user_id, str) or not user_id.strip():
            raise InvalidInputError("user_id must be a non-empty string")
        if session_id is not None and (not isinstance(session_id, str) or not session_id.strip()):
            raise InvalidInputError("session_id must be a non-empty string or None")
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InvalidInputError("budget_tokens must be a positive integer")
        if consolidation not in get_args(ConsolidationMode):
            raise InvalidInputError(f"consolidation must be one of {get_args(ConsolidationMode)}")
        self._store = store
        self.user_id = user_id
        self.session_id = session_id
        self.budget_tokens = budget_tokens
        self.consolidation: ConsolidationMode = consolidation
        self.capture_tools = capture_tools
        if context_format not in get_args(Format):
            raise InvalidInputError(f"context_format must be one of {get_args(Format)}")
        self.context_format: Format = context_format
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def store(self) -> NovaStore:
        """The store (the shared default store is opened here on first use)."""
        if self._store is None:
            self._store = shared_store()
        return self._store

    # -- hooks ---------------------------------------------------------------------------
    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with the recalled memory in the system prompt."""
        return handler(self._with_memory(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async :meth:`wrap_model_call` (same code; the engine call runs on the loop)."""
        return await handler(self._with_memory(request))

    def after_model(self, state: NovaMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Record the messages not yet captured (user, assistant, tool results if asked)."""
        return self._capture(state, runtime)

    async def aafter_model(self, state: NovaMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Async :meth:`after_model` (same code; the SQLite insert runs on the loop)."""
        return self._capture(state, runtime)

    # -- injection -----------------------------------------------------------------------
    def memory_text(self, query: str, cache_key: str | None = None) -> str:
        """The assembled memory context for ``query`` (cached per user message id)."""
        if cache_key is not None:
            with self._lock:
                cached = self._cache.get(cache_key)
                if cached is not None:
                    self._cache.move_to_end(cache_key)
                    return cached
        text = self.store.context(query, self.user_id, budget_tokens=self.budget_tokens,
                                  format=self.context_format).text
        if cache_key is not None:
            with self._lock:
                self._cache[cache_key] = text
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return text

    def _with_memory(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        latest = _latest_user_message(request.messages)
        if latest is None:
            return request
        try:
            text = self.memory_text(message_text(latest), latest.id)
        except Exception as exc:
            warn_failure(logger, "memory recall", exc)
            return request
        system = render_memory_section(request.system_message, text)
        if system is request.system_message:
            return request
        return request.override(system_message=system)

    # -- capture -------------------------------------------------------------------------
    def _capture(self, state: NovaMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        messages: Sequence[AnyMessage] = state.get("messages") or []
        if not messages:
            return None
        start = _capture_start(messages, state.get(_STATE_KEY))
        try:
            store = self.store
            session = self.session_id or _thread_id(runtime)
            limit = store.config.limits.max_content_chars
            extra: dict[str, Any] = {"source": "langchain.NovaMemory"}
            run_id = _run_id(runtime)
            if run_id:
                extra["run_id"] = run_id
            turns = [
                turn for msg in messages[start:] if self._wanted(msg)
                if (turn := message_to_turn(msg, user_id=self.user_id, session_id=session,
                                            max_chars=limit, metadata=extra)) is not None
            ]
            if turns:
                store.add_turns(turns, consolidation=self.consolidation)
        except Exception as exc:
            warn_failure(logger, "memory capture", exc)
            return None  # the watermark stays: the next model call of this run retries
        last_id = messages[-1].id
        return {_STATE_KEY: str(last_id)} if last_id else None

    def _wanted(self, message: BaseMessage) -> bool:
        if is_stored_episode(message):
            return False  # replayed from the store (e.g. NovaChatMessageHistory)
        if isinstance(message, HumanMessage):
            return True
        if isinstance(message, AIMessage):
            return True  # tool-call-only messages have no text and are skipped later
        return self.capture_tools and isinstance(message, ToolMessage)


def render_memory_section(system: SystemMessage | None, memory_text: str) -> SystemMessage | None:
    """``system`` with its NovaMemory section replaced by ``memory_text`` (removed if empty).

    Works for string and content-block system messages; the input is never modified.
    """
    body = memory_text.strip().replace(MEMORY_SECTION_START, "<nova_memory>").replace(
        MEMORY_SECTION_END, "</nova_memory>")
    section = f"{MEMORY_SECTION_START}\n{body}\n{MEMORY_SECTION_END}" if body else ""
    if system is None:
        return SystemMessage(content=section) if section else None
    content = system.content
    if isinstance(content, str):
        base = _SECTION_RE.sub("", content).strip()
        new_text = "\n\n".join(part for part in (base, section) if part)
        if new_text == content:
            return system
        return system.model_copy(update={"content": new_text})
    blocks: list[str | dict[Any, Any]] = []
    for block in content:
        text = block if isinstance(block, str) else block.get("text") if block.get("type") == "text" else None
        if isinstance(text, str) and text.lstrip().startswith(MEMORY_SECTION_START):
            continue
        blocks.append(block)
    if section:
        blocks.append({"type": "text", "text": section})
    return system.model_copy(update={"content": blocks})


def _latest_user_message(messages: Sequence[BaseMessage]) -> HumanMessage | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and message_text(message):
            return message
    return None


def _capture_start(messages: Sequence[BaseMessage], watermark: object) -> int:
    """Index of the first message not yet captured.

    With a watermark (id of the last captured message, kept in agent state) everything
    after it. Without one (first model call of a run on a fresh state, or the watermark
    was trimmed away), the current turn: the trailing block of user messages before the
    latest model output. Earlier history passed in by the caller is assumed captured.
    """
    if isinstance(watermark, str) and watermark:
        for i in range(len(messages) - 1, -1, -1):
            if messages[i].id == watermark:
                return i + 1
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), None)
    if last_user is None:
        return max(0, len(messages) - 1)
    while last_user > 0 and isinstance(messages[last_user - 1], HumanMessage):
        last_user -= 1
    return last_user


def _thread_id(runtime: Runtime[Any] | None) -> str | None:
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    if thread:
        return str(thread)
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable") or {}
    except Exception:  # outside a runnable context
        return None
    thread = configurable.get("thread_id")
    return str(thread) if thread else None


def _run_id(runtime: Runtime[Any] | None) -> str | None:
    info = getattr(runtime, "execution_info", None)
    run = getattr(info, "run_id", None)
    return str(run) if run else None


