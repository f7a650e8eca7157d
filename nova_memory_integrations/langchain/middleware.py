"""``NovaMemory``: long-term memory for ``create_agent`` agents as one middleware."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
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
from ..consolidation.by_model import DEFAULT_IDLE_SECONDS, ConsolidatesWithModel, ModelConsolidation
from ..engine.validation import require_store
from ..errors import InvalidInputError
from ..retrieval.assemble import Format
from ..retrieval.section import (
    MEMORY_SECTION_END,
    MEMORY_SECTION_START,
    memory_section,
    with_memory_parts,
    with_memory_section,
)
from ..store import NovaStore
from ._convert import is_stored_episode, message_text, message_to_turn
from ._shared import WarnOnce, field, first_id, run_configurable, shared_store, warn_failure

__all__ = [
    "MEMORY_SECTION_END",
    "MEMORY_SECTION_START",
    "MemoryScope",
    "NovaMemory",
    "NovaMemoryState",
    "render_memory_section",
]

logger = logging.getLogger(__name__)

_STATE_KEY = "nova_memory_captured"
_OWNER_KEY = "nova_memory_captured_by"
_CACHE_SIZE = 256
_NO_USER = (
    "nova-memory: NovaMemory found no user for this call, so it neither recalls nor records memory; pass one "
    "per call with agent.invoke(..., context={'user_id': ...}) (a context_schema with a user_id field) or "
    "config={'configurable': {'user_id': ...}}, or a default with NovaMemory(user_id=...)"
)


class NovaMemoryState(AgentState[Any]):
    """Agent state with NovaMemory's private capture watermark.

    ``nova_memory_captured`` is the id of the last message already recorded, so a tool loop
    (several model calls in one run) and a checkpointed thread capture each message once;
    ``nova_memory_captured_by`` is the user it was recorded for (``""``: a call without a
    user, which records nothing). A watermark of another user is not followed: a call
    records at most its own current turn, so a thread shared by two users never files one
    user's messages under the other. Both are private: not part of the agent's input or
    output schema.
    """

    nova_memory_captured: NotRequired[Annotated[str | None, PrivateStateAttr]]
    nova_memory_captured_by: NotRequired[Annotated[str | None, PrivateStateAttr]]


@dataclass(frozen=True)
class MemoryScope:
    """Whose memory one call reads and writes: the user and the session of captured turns."""

    user_id: str
    session_id: str | None = None


class NovaMemory(ConsolidatesWithModel, AgentMiddleware[NovaMemoryState, Any, Any]):
    """Agent middleware that recalls long-term memory into the prompt and records each turn.

    One compiled agent serves many users: the user of each call comes from the call, so
    ``NovaMemory()`` needs no arguments. Before every model call the memory context of
    that user for the latest user message (``store.context(...)``, within
    ``budget_tokens``) is put into the system prompt, in its own ``<nova-memory>`` section
    that replaces the previous one instead of piling up. After every model call the new
    user and assistant messages (and tool results with ``capture_tools=True``) are
    recorded as episodes of that user, and consolidation runs per ``consolidation``. Each
    message is recorded once, also across the several model calls of a tool loop. Memory
    failures are logged as warnings; the agent goes on.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations   # langchain (create_agent) is a dependency

    Instantiate:
        .. code-block:: python

            from dataclasses import dataclass
            from langchain.agents import create_agent
            from nova_memory_integrations.langchain import NovaMemory

            @dataclass
            class Context:
                user_id: str

            agent = create_agent(model, tools, middleware=[NovaMemory()], context_schema=Context)
            # or: NovaMemory(store, budget_tokens=500, consolidation="immediate")
            # or a default user for calls that name none: NovaMemory(user_id="alice")

    Usage:
        .. code-block:: python

            agent.invoke({"messages": [{"role": "user", "content": "I live in Paris."}]},
                         {"configurable": {"thread_id": "s1"}}, context=Context(user_id="alice"))
            # later, any thread: alice's system prompt holds the fact "user lives in Paris"
            await agent.ainvoke({"messages": [{"role": "user", "content": "Where do I live?"}]},
                                {"configurable": {"thread_id": "s2"}}, context=Context(user_id="alice"))
            # bob, same agent, never sees alice's memory
            agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "b1", "user_id": "bob"}})

    Whose memory: per call, the first of the runtime context's ``user_id`` (``context=``
    of ``invoke``: a dataclass, TypedDict, pydantic model or any mapping), the run
    config's ``configurable["user_id"]``, the authenticated LangGraph Server user
    (``runtime.server_info.user.identity``) and the ``user_id`` given here. With none of
    them the call runs without memory (no recall, no capture; one warning per
    middleware): memory is never shared between users by default. The session of a
    captured turn is, in the same way, the context's ``session_id`` or ``thread_id``, the
    run's ``thread_id``, then ``session_id`` given here, else none. Recall is across all
    sessions of the user; the recall cache is per user and per message.

    Async: ``awrap_model_call`` / ``aafter_model`` run the same code as the sync hooks in
    a worker thread (``asyncio.to_thread``), so the event loop keeps serving other
    requests while the engine works. Capture is a SQLite insert (embedding and background
    consolidation run on the store's own threads): well under a millisecond at p50.
    Recall embeds the query, searches and reranks: roughly 30-200 ms p50 on a 2-core CPU
    depending on memory size and load (a tool loop's later model calls reuse the recall
    of the same user message: ~0.1 ms). Numbers, event-loop lag included:
    ``benchmarks/middleware_overhead.py``. ``consolidation="immediate"`` runs extraction
    inline on capture and is meant for tests and demos.

    Args:
        store: the ``NovaStore``; ``None`` opens the process-wide store at the default path
            (``$NOVA_MEMORY_HOME`` or ``~/.nova-memory``) on first use.
        user_id: default user, for calls that name none (see above).
        session_id: default session of captured turns, for calls without a session or thread.
        budget_tokens: token budget of the recalled memory (the section markers add ~10).
        consolidation: ``"background"`` (default), ``"immediate"`` or ``"manual"``; passed
            to ``store.add_turns``.
        capture_tools: also record tool results as ``tool`` turns.
        consolidation_model: a chat model (this agent's own, or any LangChain chat model or
            LlamaIndex LLM) that turns the recorded turns into facts, in the background,
            batched: a user's turns are consolidated once ``consolidation_batch_turns`` have
            accumulated, or ``consolidation_idle_seconds`` after their last turn (one LLM call
            per ``[consolidation] llm_batch_size`` episodes). Opt-in; replaces
            ``consolidation`` (turns are recorded unconsolidated). :meth:`flush_consolidation`
            waits for it; ``llm_calls`` counts the calls.
        consolidation_batch_turns: see ``consolidation_model`` (default: ``llm_batch_size``).
        consolidation_idle_seconds: see ``consolidation_model``.
        context_format: format of the recalled memory (``store.context(format=...)``);
            the default ``"xml"`` names each memory's id, dates, validity and confidence,
            so the model (and a reviewer) can tell where a statement came from.
        schemas: pydantic models of what the app wants remembered, declared on the store
            (``store.declare_schemas``; ``NovaStore(schemas=...)``): their facts are validated,
            and a consolidation model extracts them through them.
    """

    state_schema = NovaMemoryState

    def __init__(
        self,
        store: NovaStore | None = None,
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        consolidation: ConsolidationMode = "background",
        capture_tools: bool = False,
        context_format: Format = "xml",
        consolidation_model: Any = None,
        consolidation_batch_turns: int | None = None,
        consolidation_idle_seconds: float = DEFAULT_IDLE_SECONDS,
        schemas: Sequence[type[Any]] | None = None,
    ) -> None:
        super().__init__()
        for name, value in (("user_id", user_id), ("session_id", session_id)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidInputError(f"{name} must be a non-empty string or None")
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InvalidInputError("budget_tokens must be a positive integer")
        if consolidation not in get_args(ConsolidationMode):
            raise InvalidInputError(f"consolidation must be one of {get_args(ConsolidationMode)}")
        self._store = None if store is None else require_store(store, NovaStore, type(self).__name__, optional=True)
        self._schemas = tuple(schemas or ())
        if self._store is not None and self._schemas:
            self._store.declare_schemas(self._schemas)
        self.user_id = user_id
        self.session_id = session_id
        self.budget_tokens = budget_tokens
        self.consolidation: ConsolidationMode = consolidation
        self.capture_tools = capture_tools
        if context_format not in get_args(Format):
            raise InvalidInputError(f"context_format must be one of {get_args(Format)}")
        self.context_format: Format = context_format
        self._cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()
        self._warn_no_user = WarnOnce(logger, _NO_USER)
        if consolidation_batch_turns is not None and (
            isinstance(consolidation_batch_turns, bool) or not isinstance(consolidation_batch_turns, int)
            or consolidation_batch_turns < 1
        ):
            raise InvalidInputError("consolidation_batch_turns must be a positive integer or None")
        self.consolidation_model = consolidation_model
        self._by_model_args = (consolidation_batch_turns, float(consolidation_idle_seconds))
        self._by_model: ModelConsolidation | None = None

    @property
    def store(self) -> NovaStore:
        """The store (the shared default store is opened here on first use)."""
        if self._store is None:
            self._store = shared_store()
            if self._schemas:
                self._store.declare_schemas(self._schemas)
        return self._store

    def _model_consolidation(self, store: NovaStore) -> ModelConsolidation | None:
        if self.consolidation_model is None:
            return None
        with self._lock:
            if self._by_model is None:
                batch, idle = self._by_model_args
                self._by_model = ModelConsolidation.build(
                    self.consolidation_model, store.config.consolidation,
                    lambda user, llm: store.consolidate(user, llm=llm), batch_turns=batch, idle_seconds=idle,
                )
            return self._by_model

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
        """Async :meth:`wrap_model_call`: the same code, run off the event loop."""
        return await handler(await asyncio.to_thread(self._with_memory, request))

    def after_model(self, state: NovaMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Record the messages not yet captured (user, assistant, tool results if asked)."""
        return self._capture(state, runtime)

    async def aafter_model(self, state: NovaMemoryState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Async :meth:`after_model`: the same code, run off the event loop."""
        return await asyncio.to_thread(self._capture, state, runtime)

    # -- whose memory --------------------------------------------------------------------
    def scope(self, runtime: Runtime[Any] | None = None) -> MemoryScope | None:
        """The user and session of the current call (``None``: no user, memory is off).

        Reads ``runtime.context``, the current run's config (so call it inside the run, or
        in a thread started with the run's context, as ``asyncio.to_thread`` does) and the
        defaults given to the constructor; see the class docstring for the order. Warns
        once per middleware when there is no user.
        """
        context = getattr(runtime, "context", None)
        configurable = run_configurable()
        user = first_id(field(context, "user_id"), configurable.get("user_id"), _server_user(runtime), self.user_id)
        if user is None:
            self._warn_no_user()
            return None
        session = first_id(
            field(context, "session_id"),
            field(context, "thread_id"),
            _thread_id(runtime, configurable),
            self.session_id,
        )
        return MemoryScope(user, session)

    # -- injection -----------------------------------------------------------------------
    def memory_text(self, query: str, cache_key: str | None = None, *, user_id: str | None = None) -> str:
        """The assembled memory context of ``user_id`` (default: the middleware's) for ``query``.

        Cached per user and ``cache_key`` (the user message id).
        """
        user_id = user_id or self.user_id
        if user_id is None:
            raise InvalidInputError("memory_text needs a user_id (this NovaMemory has no default user)")
        key = (user_id, cache_key) if cache_key is not None else None
        if key is not None:
            with self._lock:
                cached = self._cache.get(key)
                if cached is not None:
                    self._cache.move_to_end(key)
                    return cached
        text = self.store.context(query, user_id, budget_tokens=self.budget_tokens, format=self.context_format).text
        if key is not None:
            with self._lock:
                self._cache[key] = text
                while len(self._cache) > _CACHE_SIZE:
                    self._cache.popitem(last=False)
        return text

    def _with_memory(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        latest = _latest_user_message(request.messages)
        if latest is None:
            return request
        scope = self.scope(request.runtime)
        if scope is None:
            return request
        try:
            text = self.memory_text(message_text(latest), latest.id, user_id=scope.user_id)
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
        last_id = messages[-1].id
        scope = self.scope(runtime)
        if scope is None:  # nothing recorded; a later call with a user does not claim these messages
            return {_STATE_KEY: str(last_id), _OWNER_KEY: ""} if last_id else None
        owner = state.get(_OWNER_KEY)
        watermark = state.get(_STATE_KEY) if owner is None or owner == scope.user_id else None
        start = _capture_start(messages, watermark)
        try:
            store = self.store
            limit = store.config.limits.max_content_chars
            extra: dict[str, Any] = {"source": "langchain.NovaMemory"}
            run_id = _run_id(runtime)
            if run_id:
                extra["run_id"] = run_id
            turns = [
                turn
                for msg in messages[start:]
                if self._wanted(msg)
                if (
                    turn := message_to_turn(
                        msg, user_id=scope.user_id, session_id=scope.session_id, max_chars=limit, metadata=extra
                    )
                )
                is not None
            ]
            if turns:
                by_model = self._model_consolidation(store)
                store.add_turns(turns, consolidation="manual" if by_model is not None else self.consolidation)
                if by_model is not None:
                    by_model.captured(scope.user_id, len(turns))
        except Exception as exc:
            warn_failure(logger, "memory capture", exc)
            return None  # the watermark stays: the next model call of this run retries
        return {_STATE_KEY: str(last_id), _OWNER_KEY: scope.user_id} if last_id else None

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

    Works for string and content-block system messages; the section is the one the memory
    server's ``inject_memory`` writes (:mod:`nova_memory_integrations.retrieval.section`). The
    input is never modified.
    """
    if system is None:
        section = memory_section(memory_text)
        return SystemMessage(content=section) if section else None
    content = system.content
    if isinstance(content, str):
        new_text = with_memory_section(content, memory_text)
        return system if new_text == content else system.model_copy(update={"content": new_text})
    return system.model_copy(update={"content": with_memory_parts(content, memory_text)})


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


def _server_user(runtime: Runtime[Any] | None) -> object:
    """The authenticated LangGraph Server user's identity, if any."""
    user = getattr(getattr(runtime, "server_info", None), "user", None)
    return getattr(user, "identity", None) if user is not None else None


def _thread_id(runtime: Runtime[Any] | None, configurable: Mapping[str, Any]) -> str | None:
    info = getattr(runtime, "execution_info", None)
    return first_id(getattr(info, "thread_id", None), configurable.get("thread_id"))


def _run_id(runtime: Runtime[Any] | None) -> str | None:
    info = getattr(runtime, "execution_info", None)
    run = getattr(info, "run_id", None)
    return str(run) if run else None
