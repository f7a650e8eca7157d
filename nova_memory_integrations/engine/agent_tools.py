"""What the agent memory tools do, once, for every framework (LangChain tools, LlamaIndex
``FunctionTool``s): search the user's memory, remember a fact or a note, forget one memory.

Each function takes the store and the user the adapter resolved for the call, and returns
the text the model reads. Memory failures come back as text too ("memory is unavailable:
..."), never as an exception into the agent's loop; input the engine refuses comes back as
the engine's message, so the model can correct itself.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any

from ..errors import InvalidInputError, NotFoundError

__all__ = ["NO_USER", "TOOL_DESCRIPTIONS", "edit_pinned_block", "forget_memory", "remember", "search_memory"]

logger = logging.getLogger(__name__)

NO_USER = "Memory is unavailable for this call: no user is known (pass user_id in the run's context or config)."
TOOL_DESCRIPTIONS = {
    "search_memory": "Search the long-term memory about the user (past conversations and known facts). "
    "Returns the best matches, each with its id, kind and date.",
    "remember": "Store something in the long-term memory about the user: either a fact (subject, predicate, "
    "object, optionally valid_from) or a free-text note. Use for lasting information, not chit-chat.",
    "forget": "Forget one memory about the user by its id (from search_memory), e.g. when the user asks you to "
    "forget it or says it is wrong.",
    "edit_pinned_block": "Edit a pinned memory block, which is shown to you on every turn (e.g. 'human': what you "
    "keep about the user; 'persona': about yourself). Give content to replace the whole block, or append to add "
    "a line. Keep it short: each block has a size limit.",
}


def _fail(what: str, exc: Exception) -> str:
    if isinstance(exc, (InvalidInputError, NotFoundError)):  # the model can correct its call
        return f"{what} failed: {exc}"
    logger.warning("nova-memory %s failed (the agent goes on): %s: %s", what, type(exc).__name__, exc)
    return f"Memory is unavailable: {what} failed."


def search_memory(store: Any, user_id: str, query: str, k: int = 5) -> str:
    """The best ``k`` memories for ``query`` as lines ``[id] kind, date: text``."""
    try:
        hits = store.retrieve(query, user_id, k=k, kinds=("episode", "fact"))
    except Exception as exc:
        return _fail("search_memory", exc)
    if not hits:
        return "No memories found."
    lines = []
    for hit in hits:
        when = hit.timestamp.date().isoformat() if hit.timestamp is not None else "undated"
        lines.append(f"[{hit.id}] {hit.kind}, {when}: {hit.text}")
    return "\n".join(lines)


def _as_utc(value: str | None) -> str | None:
    """A model's ``"2024-01-05"`` (no zone) as UTC; anything else as given (the engine checks it)."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return value
    return (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)).isoformat()


def remember(
    store: Any,
    user_id: str,
    *,
    note: str | None = None,
    subject: str | None = None,
    predicate: str | None = None,
    object: str | None = None,
    valid_from: str | None = None,
    session_id: str | None = None,
) -> str:
    """Store a fact (all three of subject, predicate, object) or a note (``note``), as an explicit
    memory (the agent was asked, or judged it worth keeping: it outranks and outlives inferred ones)."""
    triple = (subject, predicate, object)
    valid_from = _as_utc(valid_from)
    try:
        if all(triple):
            decision = store.add_fact(user_id, str(subject), str(predicate), str(object), valid_from=valid_from,
                                      metadata={"source": "tool.remember"})
            return (f"Remembered ({decision.op}): {decision.subject} {decision.predicate} {decision.object} "
                    f"[{decision.fact_id}]")
        if any(triple):
            return "remember needs all of subject, predicate and object for a fact, or a note."
        if not note or not note.strip():
            return "remember needs a note or a fact (subject, predicate, object)."
        episode = store.add_turn(user_id, "user", note, session_id=session_id, timestamp=valid_from,
                                 metadata={"source": "tool.remember"}, source="explicit")
        return f"Remembered the note [{episode.id}]."
    except Exception as exc:
        return _fail("remember", exc)


def edit_pinned_block(store: Any, user_id: str, name: str, *, content: str | None = None,
                      append: str | None = None) -> str:
    """Replace the block ``name`` with ``content``, or add ``append`` as a line at its end (the
    version it replaces stays in the block's history)."""
    if (content is None) == (append is None):
        return "edit_pinned_block needs either content (the whole new block) or append (a line to add)."
    try:
        if content is not None:
            block = store.set_block(user_id, name, content, author="agent")
        else:
            block = store.append_to_block(user_id, name, str(append), author="agent")
    except Exception as exc:
        return _fail("edit_pinned_block", exc)
    return f"Pinned block {block.name!r} is now ({len(block.content)}/{block.limit} characters):\n{block.content}"


def forget_memory(store: Any, user_id: str, memory_id: str) -> str:
    """Delete one memory of ``user_id`` (an episode, a fact with its history, or a rule)."""
    try:
        deleted = store.delete(user_id, [memory_id])
    except Exception as exc:
        return _fail("forget", exc)
    if not any(deleted.values()):
        return f"No memory {memory_id!r} was found for this user."
    return f"Forgot {memory_id}."
