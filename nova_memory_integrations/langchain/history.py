"""``NovaChatMessageHistory``: a chat history persisted as episodes of a ``NovaStore``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from ..config import ConsolidationMode
from ..engine.validation import require_store
from ..errors import InvalidInputError
from ..store import NovaStore
from ._convert import episode_to_message, is_stored_episode, message_to_turn
from ._shared import warn_failure

__all__ = ["NovaChatMessageHistory"]

logger = logging.getLogger(__name__)


class NovaChatMessageHistory(BaseChatMessageHistory):
    """The messages of one session of one user, stored as episodes in a ``NovaStore``.

    Use it as the history of ``RunnableWithMessageHistory``: every message added becomes
    an episode of ``user_id`` in ``session_id``, so it also feeds long-term memory
    (consolidation into facts, recall by ``NovaRetriever`` / ``NovaMemory``). Only the text
    of messages is kept (tool calls of AI messages are not). Messages read back carry their
    episode id as ``id`` and are never stored twice.

    Clearing a session deletes that session's episodes; facts learned from them stay
    unless ``clear(forget_facts=True)``.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.langchain import NovaChatMessageHistory

            store = NovaStore("./memory")
            history = NovaChatMessageHistory(store, "alice", "session-1")

    Usage:
        .. code-block:: python

            from langchain_core.runnables.history import RunnableWithMessageHistory

            chain = RunnableWithMessageHistory(
                prompt | model,
                lambda session_id: NovaChatMessageHistory(store, "alice", session_id),
                input_messages_key="question",
                history_messages_key="history",
            )
            chain.invoke({"question": "I live in Paris"}, {"configurable": {"session_id": "s1"}})
            history.clear()                    # the session is gone, "alice lives in Paris" stays

    Reads and writes fail open (a warning is logged; reading returns no messages) so a
    memory problem never breaks the chain; :meth:`clear` raises, since a failed deletion
    must not pass silently. The async methods call the engine directly (SQLite, no
    executor).

    Args:
        store: the ``NovaStore`` holding the history.
        user_id: whose history it is.
        session_id: the session (conversation) id.
        consolidation: consolidation mode for added messages (default: the store's).
    """

    def __init__(
        self,
        store: NovaStore,
        user_id: str,
        session_id: str,
        *,
        consolidation: ConsolidationMode | None = None,
    ) -> None:
        for name, value in (("user_id", user_id), ("session_id", session_id)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidInputError(f"{name} must be a non-empty string")
        self.store = require_store(store, NovaStore, type(self).__name__)
        self.user_id = user_id
        self.session_id = session_id
        self.consolidation = consolidation

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]  # base declares an attribute
        """The session's messages, oldest first."""
        try:
            episodes = self.store.episodes(self.user_id, session_id=self.session_id)
        except Exception as exc:
            warn_failure(logger, "reading the chat history", exc)
            return []
        return [episode_to_message(ep) for ep in episodes]

    async def aget_messages(self) -> list[BaseMessage]:
        """Async :attr:`messages` (direct engine call)."""
        return self.messages

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store ``messages`` (in one atomic write) as episodes of this session."""
        try:
            limit = self.store.config.limits.max_content_chars
            turns = [
                turn for msg in messages if not is_stored_episode(msg)
                if (turn := message_to_turn(msg, user_id=self.user_id, session_id=self.session_id,
                                            max_chars=limit,
                                            metadata={"source": "langchain.NovaChatMessageHistory"})) is not None
            ]
            if turns:
                self.store.add_turns(turns, consolidation=self.consolidation)
        except Exception as exc:
            warn_failure(logger, "saving to the chat history", exc)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async :meth:`add_messages` (direct engine call)."""
        self.add_messages(messages)

    def clear(self, *, forget_facts: bool = False) -> None:
        """Delete this session's episodes.

        Args:
            forget_facts: also delete every fact whose provenance includes one of these
                episodes (all versions of its lineage). By default facts stay.
        """
        ids = [ep.id for ep in self.store.episodes(self.user_id, session_id=self.session_id)]
        if not ids:
            return
        if forget_facts:
            session_ids = set(ids)
            ids += [f.id for f in self.store.facts(self.user_id, include_history=True)
                    if session_ids.intersection(f.provenance)]
        self.store.delete(self.user_id, ids)

    async def aclear(self, *, forget_facts: bool = False) -> None:
        """Async :meth:`clear` (direct engine call)."""
        self.clear(forget_facts=forget_facts)

    def __repr__(self) -> str:
        return f"NovaChatMessageHistory(user_id={self.user_id!r}, session_id={self.session_id!r})"
