"""Conversions shared by the LangChain adapters: messages <-> turns, memories -> ``Document``.

Every ``Document`` produced from memory carries the same metadata keys, whichever path
produced it (``store.retrieve`` hits or ``store.context`` sources):

``kind`` (episode / fact / rule), ``id``, ``score``, ``scores`` (per-signal), ``timestamp``,
``valid_from`` / ``valid_to`` (ISO-8601 strings or ``None``), ``confidence``, ``provenance``
(ids of the episodes a fact came from), ``session_id``, ``role``, ``lineage_id``,
``subject`` / ``predicate`` / ``object`` for facts, ``condition`` / ``action`` for rules,
``memory_metadata`` (the metadata stored with the memory) and ``source="nova-memory"``.
Values are JSON-serialisable so the documents can be stored in any vector store or sent
over the wire.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from ..retrieval.metadata import MEMORY_SOURCE, context_item_metadata, hit_metadata

if TYPE_CHECKING:
    from ..types import ContextItem, Episode, SearchHit

__all__ = [
    "MEMORY_SOURCE",
    "content_key",
    "context_item_to_document",
    "episode_to_message",
    "hit_to_document",
    "is_stored_episode",
    "message_role",
    "message_text",
    "message_to_turn",
]


_TRUNCATED = "\n[... truncated by nova-memory]"
_EPISODE_ID = re.compile(r"ep_[0-9a-f]{32}")


def message_role(message: BaseMessage) -> str:
    """The store role of a LangChain message: ``user``, ``assistant``, ``system`` or ``tool``."""
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, SystemMessage):
        return "system"
    if isinstance(message, (ToolMessage, FunctionMessage)):
        return "tool"
    if isinstance(message, ChatMessage):
        role = message.role.strip().lower()
        return {"human": "user", "ai": "assistant"}.get(role, role) or "user"
    return {"human": "user", "ai": "assistant"}.get(message.type, message.type)


def message_text(message: BaseMessage) -> str:
    """The plain text of a message (text blocks only; tool calls and images are skipped)."""
    return str(message.text).strip()


def is_stored_episode(message: BaseMessage) -> bool:
    """Whether ``message`` was read back from the store (its id is an episode id).

    Messages replayed from memory (e.g. by ``NovaChatMessageHistory``) are already
    episodes; capturing them again would duplicate them.
    """
    return isinstance(message.id, str) and _EPISODE_ID.fullmatch(message.id) is not None


def content_key(*parts: object) -> str:
    """A short stable digest of ``parts`` (used to recognise a message without an id)."""
    digest = hashlib.blake2b(digest_size=12)
    for part in parts:
        digest.update(str(part).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def message_to_turn(
    message: BaseMessage,
    *,
    user_id: str,
    session_id: str | None,
    max_chars: int,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """A ``store.add_turns`` mapping for ``message``, or ``None`` when it has no text.

    Text longer than ``max_chars`` (the store's content limit) is truncated rather than
    rejected, so one huge tool output never loses the rest of the turn.
    """
    text = message_text(message)
    if not text:
        return None
    if len(text) > max_chars:
        text = text[: max(1, max_chars - len(_TRUNCATED))] + _TRUNCATED
    meta: dict[str, Any] = {"message_type": message.type}
    if message.id:
        meta["message_id"] = str(message.id)
    if message.name:
        meta["name"] = str(message.name)
    if isinstance(message, ToolMessage):
        meta["tool_call_id"] = str(message.tool_call_id)
    if metadata:
        meta.update(metadata)
    return {"user_id": user_id, "role": message_role(message), "content": text,
            "session_id": session_id, "metadata": meta}


def episode_to_message(episode: Episode) -> BaseMessage:
    """The LangChain message for a stored turn; its ``id`` is the episode id."""
    meta = episode.metadata
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    common: dict[str, Any] = {"content": episode.content, "id": episode.id}
    if name:
        common["name"] = name
    if episode.role == "user":
        return HumanMessage(**common)
    if episode.role == "assistant":
        return AIMessage(**common)
    if episode.role == "system":
        return SystemMessage(**common)
    if episode.role == "tool":
        return ToolMessage(tool_call_id=str(meta.get("tool_call_id") or ""), **common)
    return ChatMessage(role=episode.role, **common)


def hit_to_document(hit: SearchHit) -> Document:
    """A ``Document`` for one ``store.retrieve`` / ``store.search`` hit."""
    return Document(id=hit.id, page_content=hit.text, metadata=hit_metadata(hit))


def context_item_to_document(item: ContextItem) -> Document:
    """A ``Document`` for one source of a ``store.context`` result (budgeted retrieval)."""
    return Document(id=item.id, page_content=item.text, metadata=context_item_metadata(item))
