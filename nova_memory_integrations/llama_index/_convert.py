"""Conversions between NovaStore values and LlamaIndex objects (nodes, chat messages)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore, TextNode

from ..retrieval.metadata import DEFAULT_LLM_METADATA_KEYS, hit_metadata
from ..types import SearchHit

__all__ = [
    "copy_node_with_text",
    "hit_to_node",
    "message_role",
    "memory_text",
    "message_text",
    "messages_to_turns",
    "node_text",
]

_REACT_STEP = re.compile(r"^\s*(Thought|Action|Action Input|Observation):", re.MULTILINE)
_REACT_ANSWER = re.compile(r"^\s*Answer:\s*", re.MULTILINE)


def hit_to_node(hit: SearchHit, llm_metadata_keys: Sequence[str] = DEFAULT_LLM_METADATA_KEYS) -> NodeWithScore:
    """A retrieved memory as a ``NodeWithScore`` (node id = memory id).

    The metadata is :func:`~nova_memory_integrations._metadata.hit_metadata` (the same as
    the LangChain documents'). LlamaIndex renders only the ``llm_metadata_keys`` that
    have a value into the LLM prompt, and no metadata for embedding.
    """
    meta = hit_metadata(hit)
    shown = {k for k in llm_metadata_keys if meta.get(k) is not None}
    node = TextNode(
        id_=hit.id,
        text=hit.text,
        metadata=meta,
        excluded_llm_metadata_keys=[k for k in meta if k not in shown],
        excluded_embed_metadata_keys=list(meta),
    )
    return NodeWithScore(node=node, score=float(hit.score))


def node_text(node: BaseNode) -> str:
    """The text of a node without its metadata."""
    return node.get_content(metadata_mode=MetadataMode.NONE)


def copy_node_with_text(nws: NodeWithScore, text: str, score: float, extra: dict[str, Any]) -> NodeWithScore:
    """A deep copy of ``nws`` with new text, score and extra metadata (the input is untouched)."""
    src = nws.node
    if isinstance(src, TextNode):
        node: BaseNode = src.model_copy(deep=True)
        node.set_content(text)
    else:  # images, index nodes ...: keep id and metadata, carry the text in a TextNode
        node = TextNode(id_=src.node_id, text=text, metadata=dict(src.metadata),
                        excluded_llm_metadata_keys=list(src.excluded_llm_metadata_keys),
                        excluded_embed_metadata_keys=list(src.excluded_embed_metadata_keys))
    node.metadata.update(extra)
    node.excluded_llm_metadata_keys = [*node.excluded_llm_metadata_keys,
                                       *(k for k in extra if k not in node.excluded_llm_metadata_keys)]
    node.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys,
                                         *(k for k in extra if k not in node.excluded_embed_metadata_keys)]
    return NodeWithScore(node=node, score=score)


def message_role(message: ChatMessage) -> str:
    """The role of a chat message as plain lower-case text."""
    role = message.role
    return (role.value if isinstance(role, MessageRole) else str(role)).lower()


def message_text(message: ChatMessage) -> str:
    """The text of a chat message (its text blocks joined), ``""`` when it has none."""
    return (message.content or "").strip()


def memory_text(role: str, text: str) -> str:
    """The part of a message worth remembering.

    A ReAct agent's assistant message carries its whole scratchpad (thoughts, tool
    calls and their observations, i.e. possibly memories it just retrieved); only the
    final answer is kept, and a scratchpad without one is not remembered at all. The
    tool observations it sends back as user messages are not remembered either.
    """
    if role == "user" and text.lstrip().startswith("Observation:"):
        return ""
    if role != "assistant" or not _REACT_STEP.search(text):
        return text
    answers = list(_REACT_ANSWER.finditer(text))
    return text[answers[-1].end():].strip() if answers else ""


def messages_to_turns(
    messages: Iterable[ChatMessage],
    user_id: str,
    *,
    session_id: str | None,
    roles: Sequence[str],
    source: str,
) -> list[dict[str, Any]]:
    """Turns for :meth:`NovaStore.add_turns` from chat messages with text in ``roles``.

    ``session_id`` wins over a message's own ``additional_kwargs["session_id"]`` (which
    LlamaIndex ``Memory`` sets to its session key when flushing to blocks).
    """
    turns: list[dict[str, Any]] = []
    for m in messages:
        role = message_role(m)
        text = memory_text(role, message_text(m))
        if role not in roles or not text:
            continue
        sid = session_id or m.additional_kwargs.get("session_id")
        turns.append({"user_id": user_id, "role": role, "content": text,
                      "session_id": str(sid) if sid is not None else None,
                      "metadata": {"source": source}})
    return turns
