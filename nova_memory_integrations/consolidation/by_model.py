"""Consolidation by an agent's own chat model, batched, in the background (opt-in).

The framework adapters (``NovaMemory(consolidation_model=...)``, LlamaIndex's
``NovaMemoryBlock(consolidation_model=...)``) record turns without consolidating them and
tell a :class:`ModelConsolidation` how many turns each user got. It runs
``consolidate(user, extractor)`` on its own worker thread once a user has ``batch_turns``
new turns (one LLM call per ``llm_batch_size`` episodes), or ``idle_seconds`` after the
user's last turn, whichever comes first. Nothing runs on the caller's thread. Episodes the
model answers for unusably are consolidated by the deterministic extractor
(``consolidation.llm_fallback``); a model whose calls fail is logged once and its episodes
are dead-lettered by the consolidator as usual (nothing is lost;
``store.retry_dead_letters`` takes them again).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from .._once import WarnOnce
from .._threads import EXIT_TIMEOUT_S, JOBS, Pool, track
from ..config import ConsolidationConfig
from ..extraction.llm import LLMExtractor

__all__ = ["DEFAULT_IDLE_SECONDS", "ConsolidatesWithModel", "ModelConsolidation"]

logger = logging.getLogger(__name__)

DEFAULT_IDLE_SECONDS = 30.0
"""A user's last turns are consolidated this long after their last turn, batch full or not."""


class ModelConsolidation:
    """Batched background consolidation of captured turns with one model.

    Args:
        consolidate: ``(user_id, extractor) -> result``; the store's ``consolidate`` with
            ``llm=extractor``.
        extractor: the :class:`~nova_memory_integrations.extraction.llm.LLMExtractor` of the
            model (its ``calls`` count the LLM calls made).
        batch_turns: new turns of one user that start a run at once.
        idle_seconds: a run starts this long after a user's last turn (``0``: never by time;
            :meth:`flush` then takes what is left).
    """

    def __init__(
        self,
        consolidate: Callable[[str, Any], Any],
        extractor: Any,
        *,
        batch_turns: int,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
    ) -> None:
        self._consolidate = consolidate
        self.extractor = extractor
        self.batch_turns = max(1, batch_turns)
        self.idle_seconds = idle_seconds
        self._pending: dict[str, int] = {}
        self._timers: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()
        self._pool = Pool(1, "nova-memory-model-consolidation")
        self._futures: list[Future[None]] = []
        self._warned = WarnOnce(logger, "nova-memory model consolidation failed (turns kept, retried on the next "
                                        "run): %s: %s")
        self._closed = False
        track(self, rank=JOBS, stop=ModelConsolidation._close_at_exit)  # before the store's indexer and storage

    @classmethod
    def build(
        cls,
        model: Any,
        config: ConsolidationConfig,
        consolidate: Callable[[str, Any], Any],
        *,
        batch_turns: int | None = None,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
    ) -> ModelConsolidation:
        """For ``model`` (a LangChain chat model, LlamaIndex LLM or ``LLMExtractor``) with the
        ``[consolidation]`` settings; ``batch_turns=None``: ``llm_batch_size``."""
        extractor = model if isinstance(model, LLMExtractor) else LLMExtractor.from_config(model, config)
        return cls(consolidate, extractor, batch_turns=batch_turns or config.llm_batch_size, idle_seconds=idle_seconds)

    @property
    def llm_calls(self) -> int:
        """LLM calls made so far (failed ones included)."""
        return int(getattr(self.extractor, "calls", 0))

    def captured(self, user_id: str, turns: int) -> None:
        """``turns`` new turns of ``user_id`` were recorded (unconsolidated)."""
        if turns <= 0:
            return
        with self._lock:
            if self._closed:
                return
            self._pending[user_id] = self._pending.get(user_id, 0) + turns
            due = self._pending[user_id] >= self.batch_turns
            if due:
                self._submit_locked(user_id)
            elif self.idle_seconds > 0:
                self._arm_locked(user_id)

    def flush(self, timeout: float | None = None) -> None:
        """Consolidate every user's pending turns now and wait for the runs to finish."""
        with self._lock:
            for user_id in [u for u, n in self._pending.items() if n > 0]:
                self._submit_locked(user_id)
            futures, self._futures = self._futures, []
        for future in futures:
            future.result(timeout)

    def close(self) -> None:
        """Stop the timers and wait for running consolidations (pending turns stay unprocessed)."""
        self._close()
        self._pool.shutdown()

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()

    def _close_at_exit(self) -> None:
        """At interpreter exit: the run under way finishes, queued ones are dropped (their turns stay
        unprocessed, for the next run)."""
        self._close()
        with self._lock:
            for future in self._futures:
                future.cancel()
        self._pool.shutdown(EXIT_TIMEOUT_S)

    # -- internals --------------------------------------------------------------------------
    def _arm_locked(self, user_id: str) -> None:
        old = self._timers.pop(user_id, None)
        if old is not None:
            old.cancel()
        timer = threading.Timer(self.idle_seconds, self._on_idle, args=(user_id,))
        timer.daemon = True
        self._timers[user_id] = timer
        timer.start()

    def _on_idle(self, user_id: str) -> None:
        with self._lock:
            if not self._closed and self._pending.get(user_id, 0) > 0:
                self._submit_locked(user_id)

    def _submit_locked(self, user_id: str) -> None:
        timer = self._timers.pop(user_id, None)
        if timer is not None:
            timer.cancel()
        self._pending[user_id] = 0
        self._futures = [f for f in self._futures if not f.done()]
        self._futures.append(self._pool.submit(self._run, user_id))

    def _run(self, user_id: str) -> None:
        try:
            self._consolidate(user_id, self.extractor)
        except Exception as exc:  # never breaks the agent; the episodes stay unprocessed
            self._warned(type(exc).__name__, exc)


class ConsolidatesWithModel:
    """What an adapter with a ``consolidation_model`` offers: its call count and a flush.

    The adapter keeps its :class:`ModelConsolidation` (built on first capture) in ``_by_model``.
    """

    _by_model: ModelConsolidation | None

    @property
    def llm_calls(self) -> int:
        """LLM calls made by ``consolidation_model`` so far (0 without one)."""
        return 0 if self._by_model is None else self._by_model.llm_calls

    def flush_consolidation(self, timeout: float | None = None) -> None:
        """Consolidate every pending turn with ``consolidation_model`` now and wait (no-op without one)."""
        if self._by_model is not None:
            self._by_model.flush(timeout)
