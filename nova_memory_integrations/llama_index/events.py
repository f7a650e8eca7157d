"""``NovaEventHandler``: capture the chat turns of any LlamaIndex pipeline into memory."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.dispatcher import Dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMChatStartEvent

from ..engine.validation import model_input, require_store
from ._convert import memory_text, message_role, message_text

__all__ = ["NovaEventHandler"]

logger = logging.getLogger(__name__)

_MAX_REMEMBERED = 4096
_STALE_S = 600.0  # a call whose end event never came (it raised) stops counting as in flight


class NovaEventHandler(BaseEventHandler):
    """Stores what users say to LLMs, and what the LLMs answer, as episodes.

    Listens to LlamaIndex instrumentation events. On ``LLMChatStartEvent`` the newest
    user message is stored when it is the last message of the request (later calls of an
    agent loop, which end with tool results, add nothing); on ``LLMChatEndEvent`` the
    assistant's reply is stored. Each turn is stored once even when the LLM class nests
    calls (``achat`` calling ``chat``) or the handler sees an event twice. System
    messages are never stored, nor a ReAct agent's intermediate reasoning (only its
    final answer). The user comes from the instrument tag ``user_tag`` when
    present (``with instrument_tags({"nova_user_id": "bob"}): ...``), else from
    ``user_id``; events with neither are ignored. Failures are logged, never raised.

    Note that a query engine sends the LLM its prompt template (retrieved context plus
    question) as the user message: set ``capture_inputs=False`` or a ``message_filter``
    there if only the answers should be remembered.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.llama_index import NovaEventHandler

            store = NovaStore("./memory")
            handler = NovaEventHandler(store, user_id="alice", session_id="s1")

    Usage:
        .. code-block:: python

            handler.attach()          # root dispatcher: every LLM chat of every pipeline
            llm.chat([ChatMessage(role="user", content="I moved to Porto.")])
            handler.detach()

            with handler.attached():  # or scoped
                chat_engine.chat("hello")

    Args:
        store: the memory engine.
        user_id: default user (when the event carries no ``user_tag`` tag).
        session_id: default session recorded on stored turns.
        capture_inputs: store the user's messages.
        capture_outputs: store the LLM's replies.
        message_filter: ``(role, text) -> bool``; only messages it accepts are stored.
        user_tag: instrument tag naming the user.
        session_tag: instrument tag naming the session.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: Any = Field(exclude=True, description="The NovaStore receiving the turns.")
    user_id: str | None = Field(default=None, description="Default user of captured turns.")
    session_id: str | None = Field(default=None, description="Default session of captured turns.")
    capture_inputs: bool = Field(default=True, description="Store user messages.")
    capture_outputs: bool = Field(default=True, description="Store assistant replies.")
    message_filter: Callable[[str, str], bool] | None = Field(default=None, exclude=True)
    user_tag: str = Field(default="nova_user_id", description="Instrument tag naming the user.")
    session_tag: str = Field(default="nova_session_id", description="Instrument tag naming the session.")

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _seen_events: OrderedDict[str, None] = PrivateAttr(default_factory=OrderedDict)
    # request fingerprint -> [calls open, reply stored (0/1), monotonic start time]
    _in_flight: dict[str, list[float]] = PrivateAttr(default_factory=dict)
    _dispatchers: list[Dispatcher] = PrivateAttr(default_factory=list)

    def __init__(self, store: Any = None, /, **data: Any) -> None:
        if store is not None:
            data["store"] = store
        if data.get("store") is not None:
            from ..store import NovaStore

            data["store"] = require_store(data["store"], NovaStore, type(self).__name__)
        with model_input(type(self).__name__):
            super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        return "NovaEventHandler"

    # -- attachment ------------------------------------------------------------------------
    def attach(self, dispatcher: Dispatcher | None = None) -> NovaEventHandler:
        """Register with ``dispatcher`` (default: the root dispatcher, which sees every event)."""
        d = dispatcher or get_dispatcher()
        if not any(h is self for h in d.event_handlers):
            d.add_event_handler(self)
            self._dispatchers.append(d)
        return self

    def detach(self) -> None:
        """Unregister from every dispatcher this handler was attached to."""
        for d in self._dispatchers:
            d.event_handlers = [h for h in d.event_handlers if h is not self]
        self._dispatchers.clear()

    @contextmanager
    def attached(self, dispatcher: Dispatcher | None = None) -> Iterator[NovaEventHandler]:
        """Attach for the duration of a ``with`` block."""
        self.attach(dispatcher)
        try:
            yield self
        finally:
            self.detach()

    # -- events ----------------------------------------------------------------------------
    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        """Store the turn carried by a chat start/end event (other events are ignored)."""
        if not isinstance(event, (LLMChatStartEvent, LLMChatEndEvent)):
            return
        try:
            self._handle(event)
        except Exception as exc:
            logger.warning("nova-memory: capturing an LLM chat event failed, continuing: %s", exc)

    def _handle(self, event: LLMChatStartEvent | LLMChatEndEvent) -> None:
        user = event.tags.get(self.user_tag) or self.user_id
        if not user:
            return
        session = event.tags.get(self.session_tag) or self.session_id
        key = _fingerprint(str(user), event.messages)
        if isinstance(event, LLMChatStartEvent):
            if not self._first_sight(event.id_):
                return
            now = time.monotonic()
            with self._lock:
                entry = self._in_flight.get(key)
                if entry is not None and now - entry[2] < _STALE_S:  # nested call of the same request
                    entry[0] += 1
                    return
                self._in_flight[key] = [1, 0, now]
                if len(self._in_flight) > _MAX_REMEMBERED:
                    self._in_flight.pop(next(iter(self._in_flight)))
            if self.capture_inputs:
                self._store_last_user_message(str(user), session, event.messages)
            return
        if not self._first_sight(event.id_):
            return
        with self._lock:
            entry = self._in_flight.get(key)
            store_reply = entry is None or not entry[1]
            if entry is not None:
                entry[0] -= 1
                entry[1] = 1
                if entry[0] <= 0:
                    del self._in_flight[key]
        if store_reply and self.capture_outputs and event.response is not None:
            reply = event.response.message
            self._store(str(user), session, message_role(reply) or "assistant", message_text(reply))

    def _first_sight(self, event_id: str) -> bool:
        with self._lock:
            if event_id in self._seen_events:
                return False
            self._seen_events[event_id] = None
            while len(self._seen_events) > _MAX_REMEMBERED:
                self._seen_events.popitem(last=False)
            return True

    def _store_last_user_message(self, user: str, session: Any, messages: Sequence[ChatMessage]) -> None:
        conversation = [m for m in messages if message_role(m) != "system"]
        if conversation and message_role(conversation[-1]) == "user":
            self._store(user, session, "user", message_text(conversation[-1]))

    def _store(self, user: str, session: Any, role: str, text: str) -> None:
        text = memory_text(role, text)
        if not text or (self.message_filter is not None and not self.message_filter(role, text)):
            return
        self.store.add_turn(user, role, text, session_id=None if session is None else str(session),
                            metadata={"source": "llama_index.events"})


def _fingerprint(user: str, messages: Sequence[ChatMessage]) -> str:
    h = hashlib.sha256(user.encode())
    for m in messages:
        h.update(b"\x00" + message_role(m).encode() + b"\x01" + (m.content or "").encode())
    return h.hexdigest()
