"""``NovaCallbackHandler``: record the conversation of any chain or agent run as memory."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from ..config import ConsolidationMode
from ..engine.validation import require_store
from ..errors import InvalidInputError
from ..store import NovaStore
from ._convert import content_key, is_stored_episode, message_to_turn
from ._shared import WarnOnce, field, first_id, run_configurable, run_context, warn_failure

__all__ = ["NovaCallbackHandler"]

logger = logging.getLogger(__name__)

_MAX_TRACKED = 10_000  # runs and message keys remembered (oldest forgotten first)
_SESSION_KEYS = ("session_id", "thread_id", "conversation_id")
_NO_USER = (
    "nova-memory: NovaCallbackHandler found no user for a chat model run and records nothing for it; pass one "
    "per run with config={'configurable': {'user_id': ...}} or config={'metadata': {'user_id': ...}} (in a "
    "LangGraph agent also context={'user_id': ...}), or a default with NovaCallbackHandler(store, user_id=...)"
)


class NovaCallbackHandler(BaseCallbackHandler):
    """Capture the human and AI messages of any chain or agent run into a ``NovaStore``.

    On ``on_chat_model_start`` the current user turn (the last block of human messages
    sent to the model) is recorded; on ``on_llm_end`` the model's answer. Each message is
    recorded once: an agent that calls the model several times with the same question
    (tool loops) records the question once, identified by message id, or, for messages
    without one, by content within the same top-level run. History replayed into a
    prompt (earlier human messages) is not recorded again. Metadata of every episode
    carries ``run_id``, ``parent_run_id`` and ``root_run_id``.

    The handler is thread-safe (its bookkeeping is under a lock) and can be shared by
    concurrent runs, sync or async (LangChain runs sync handlers of async runs in its
    executor). It fails open: store errors are logged as warnings and the run goes on.
    Do not combine it with ``NovaChatMessageHistory`` for the same user and chain: the
    history already records those turns.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations.langchain import NovaCallbackHandler

            handler = NovaCallbackHandler(store, user_id="alice", session_id="s1")
            shared = NovaCallbackHandler(store)        # the user comes with each run

    Usage:
        .. code-block:: python

            chain = prompt | model
            chain.invoke({"question": "I work at Acme"}, {"callbacks": [handler]})
            agent.invoke({"messages": [...]}, {"callbacks": [handler]})
            chain.invoke({"question": "..."}, {"callbacks": [shared], "configurable": {"user_id": "bob"}})

    Whose memory: per chat model run, the first of the LangGraph run's context
    ``user_id`` (``agent.invoke(..., context=...)``), the run config's
    ``configurable["user_id"]`` (when the model runs inside a chain or graph), the run's
    metadata ``user_id`` and the ``user_id`` given here; with none of them the run is not
    recorded (one warning per handler). One handler can thus serve many users. The
    session of a turn is ``session_id`` when given, else the ``session_id`` /
    ``thread_id`` found in the run's metadata, else none. Only chat models are captured
    (completion-style LLMs have no roles).

    Args:
        store: the ``NovaStore`` to write to.
        user_id: default user, for runs that name none (see above).
        session_id: session recorded on the turns (default: from run metadata).
        consolidation: consolidation mode for captured turns (default: the store's).
    """

    raise_error = False
    run_inline = False

    def __init__(
        self,
        store: NovaStore,
        user_id: str | None = None,
        session_id: str | None = None,
        *,
        consolidation: ConsolidationMode | None = None,
    ) -> None:
        super().__init__()
        if user_id is not None and (not isinstance(user_id, str) or not user_id.strip()):
            raise InvalidInputError("user_id must be a non-empty string or None")
        self.store = require_store(store, NovaStore, type(self).__name__)
        self.user_id = user_id
        self.session_id = session_id
        self.consolidation = consolidation
        self._lock = threading.Lock()
        self._roots: OrderedDict[UUID, UUID] = OrderedDict()  # run -> top-level run
        self._chat_runs: OrderedDict[UUID, tuple[str, str | None]] = OrderedDict()  # chat run -> (user, session)
        self._seen: OrderedDict[str, None] = OrderedDict()  # keys of recorded messages (per user)
        self._warn_no_user = WarnOnce(logger, _NO_USER)

    def user_for(self, metadata: Mapping[str, Any] | None = None) -> str | None:
        """The user of the current run (see the class docstring), or None."""
        return first_id(
            field(run_context(), "user_id"),
            run_configurable().get("user_id"),
            (metadata or {}).get("user_id"),
            self.user_id,
        )

    # -- run tree ------------------------------------------------------------------------
    def _enter(self, run_id: UUID, parent_run_id: UUID | None) -> UUID:
        with self._lock:
            root = self._roots.get(parent_run_id, parent_run_id) if parent_run_id else run_id
            self._roots[run_id] = root
            _trim(self._roots)
            return root

    def _exit(self, run_id: UUID, parent_run_id: UUID | None) -> None:
        if parent_run_id is not None:
            return
        with self._lock:  # a top-level run ended: forget its runs
            for child in [r for r, root in self._roots.items() if root == run_id]:
                del self._roots[child]
            self._chat_runs.pop(run_id, None)

    def on_chain_start(
        self, serialized: dict[str, Any], inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Track the run tree (to recognise a question asked twice within one run)."""
        self._enter(run_id, parent_run_id)

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Track the run tree."""
        self._enter(run_id, parent_run_id)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Forget the run tree of a finished top-level run."""
        self._exit(run_id, parent_run_id)

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Forget the run tree of a failed top-level run."""
        self._exit(run_id, parent_run_id)

    # -- capture -------------------------------------------------------------------------
    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record the user turn sent to the model (once)."""
        try:
            root = self._enter(run_id, parent_run_id)
            user = self.user_for(metadata)
            if user is None:
                self._warn_no_user()
                return
            session = self.session_id or _session_from(metadata)
            with self._lock:
                self._chat_runs[run_id] = (user, session)
                _trim(self._chat_runs)
            candidates = [m for batch in messages for m in _current_turn(batch)]
            keys = [f"id:{m.id}" if m.id else f"run:{root}:{content_key(m.type, m.text)}" for m in candidates]
            self._record(candidates, keys, user, session, _run_meta(run_id, parent_run_id, root))
        except Exception as exc:
            warn_failure(logger, "capturing the user turn", exc)

    def on_llm_end(
        self, response: LLMResult, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Record the model's answer (once per model run)."""
        try:
            with self._lock:
                scope = self._chat_runs.pop(run_id, None)
                root = self._roots.get(run_id, run_id)
            if scope is None:
                return  # not a chat model run of a known user (or already handled)
            user, session = scope
            answers = [g.message for batch in response.generations for g in batch[:1] if isinstance(g, ChatGeneration)]
            keys = [f"out:{run_id}:{i}" for i in range(len(answers))]
            self._record(answers, keys, user, session, _run_meta(run_id, parent_run_id, root))
        except Exception as exc:
            warn_failure(logger, "capturing the model answer", exc)
        finally:
            self._exit(run_id, parent_run_id)

    def on_llm_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Forget a failed model run."""
        with self._lock:
            self._chat_runs.pop(run_id, None)
        self._exit(run_id, parent_run_id)

    def _record(
        self,
        messages: Sequence[BaseMessage],
        keys: Sequence[str],
        user: str,
        session: str | None,
        meta: Mapping[str, Any],
    ) -> None:
        limit = self.store.config.limits.max_content_chars
        keys = [f"{user}\x1f{key}" for key in keys]  # one user's message never hides another's
        with self._lock:  # claim the keys first: concurrent callers never record one message twice
            fresh = [
                (m, k) for m, k in zip(messages, keys, strict=True) if k not in self._seen and not is_stored_episode(m)
            ]
            for _, key in fresh:
                self._seen[key] = None
            _trim(self._seen)
        turns = [
            t
            for m, _ in fresh
            if (t := message_to_turn(m, user_id=user, session_id=session, max_chars=limit, metadata=meta)) is not None
        ]
        if not turns:
            return
        try:
            self.store.add_turns(turns, consolidation=self.consolidation)
        except Exception:
            with self._lock:  # not recorded after all: a later event may retry
                for _, key in fresh:
                    self._seen.pop(key, None)
            raise


def _current_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The last block of consecutive human messages (earlier ones are history)."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), None)
    if last is None:
        return []
    first = last
    while first > 0 and isinstance(messages[first - 1], HumanMessage):
        first -= 1
    return list(messages[first : last + 1])


def _session_from(metadata: Mapping[str, Any] | None) -> str | None:
    for key in _SESSION_KEYS:
        value = (metadata or {}).get(key)
        if isinstance(value, (str, int)) and str(value).strip():
            return str(value)
    return None


def _run_meta(run_id: UUID, parent_run_id: UUID | None, root: UUID) -> dict[str, Any]:
    return {
        "source": "langchain.NovaCallbackHandler",
        "run_id": str(run_id),
        "parent_run_id": str(parent_run_id) if parent_run_id else None,
        "root_run_id": str(root),
    }


def _trim(mapping: OrderedDict[Any, Any]) -> None:
    while len(mapping) > _MAX_TRACKED:
        mapping.popitem(last=False)
