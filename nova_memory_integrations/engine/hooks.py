"""Before / after hooks around each memory stage: read, change or veto, never break the call.

Registered once on the store (``store.hooks.register("before_add", redact)``); every
framework adapter goes through the same engine calls, so it needs nothing new.

A hook is ``fn(event) -> value | None``. ``event.value`` is what the stage is about to use
(``before_*``) or has produced (``after_*``); returning a value of the same kind replaces
it (a redacted turn, a filtered list), returning ``None`` keeps it. Raising :class:`Veto`
drops the item (``before_add``: that turn is not stored; ``before_decision``: that
statement is not applied) or, for list stages, empties the result. Any other exception is
logged (one warning per hook) and the hook is skipped: a hook never breaks the call.

Stages and their values:

==================== ============================================================
``before_add``       one :class:`~nova_memory_integrations.types.Episode` about to be stored (and embedded)
``after_add``        the list of stored episodes (read only)
``before_decision``  one consolidation ``Proposal`` (subject, predicate, object ...) about to be applied;
                     its ``valid_from``, when set, is the statement's valid time (every kind: facts,
                     open states, endings, the new value a change names)
``after_decision``   the list of ``FactDecision`` of one applied proposal (read only)
``before_retrieve``  the query text
``after_retrieve``   the ranked candidates (list) before reranking
``before_rerank``    the candidates about to be reranked (list)
``after_rerank``     the reranked candidates (list)
``before_assemble``  the context items about to be fitted to the budget (list)
``after_assemble``   the assembled ``ContextResult``
==================== ============================================================
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .._once import WarnOnce
from ..errors import InvalidInputError

__all__ = ["STAGES", "HookEvent", "Hooks", "Veto"]

logger = logging.getLogger(__name__)

STAGES = (
    "before_add", "after_add", "before_decision", "after_decision", "before_retrieve", "after_retrieve",
    "before_rerank", "after_rerank", "before_assemble", "after_assemble",
)
"""Every hook point, in the order a turn meets them."""

T = TypeVar("T")


class Veto(Exception):
    """Raised by a hook to drop the item (or, for a list stage, the whole list)."""


@dataclass(frozen=True)
class HookEvent:
    """What a hook receives: the stage, the user, and the value at that stage."""

    stage: str
    user_id: str
    value: Any


Hook = Callable[[HookEvent], Any]


class Hooks:
    """The hooks of one store, per stage, run in registration order."""

    def __init__(self) -> None:
        self._hooks: dict[str, list[Hook]] = {s: [] for s in STAGES}
        self._warned = WarnOnce(logger, "nova-memory hook %s at %s failed and was skipped (remove it with "
                                        "store.hooks.remove): %s: %s")  # once per hook
        self._lock = threading.Lock()

    def register(self, stage: str, hook: Hook) -> Hook:
        """Add ``hook`` at ``stage`` (usable as a decorator: ``@store.hooks.on("before_add")``).

        Raises:
            InvalidInputError: unknown stage, or ``hook`` is not callable.
        """
        if stage not in self._hooks:
            raise InvalidInputError(f"unknown hook stage {stage!r}; stages: {', '.join(STAGES)}", field="stage")
        if not callable(hook):
            raise InvalidInputError("a hook must be callable", field="hook")
        with self._lock:
            self._hooks[stage] = [*self._hooks[stage], hook]
        return hook

    def on(self, stage: str) -> Callable[[Hook], Hook]:
        """Decorator form of :meth:`register`."""
        return lambda hook: self.register(stage, hook)

    def remove(self, stage: str, hook: Hook) -> None:
        """Remove a registered hook (no error when absent)."""
        with self._lock:
            self._hooks[stage] = [h for h in self._hooks.get(stage, []) if h is not hook]

    def active(self, stage: str) -> bool:
        """Whether any hook is registered at ``stage`` (callers skip the work otherwise)."""
        return bool(self._hooks.get(stage))

    def run(self, stage: str, user_id: str, value: T) -> T:
        """``value`` after every hook of ``stage``.

        Raises:
            Veto: a hook vetoed (the caller drops the item).
        """
        for hook in self._hooks.get(stage, ()):
            try:
                out = hook(HookEvent(stage, user_id, value))
            except Veto:
                raise
            except Exception as exc:  # a failing hook is skipped, never breaks the call
                self._warn(hook, stage, exc)
                continue
            if out is not None:
                value = out
        return value

    def run_each(self, stage: str, items: Sequence[tuple[str, T]]) -> list[T]:
        """Each ``(user_id, item)`` through ``stage``; vetoed items are left out."""
        kept: list[T] = []
        for user_id, item in items:
            try:
                kept.append(self.run(stage, user_id, item))
            except Veto:
                continue
        return kept

    def run_list(self, stage: str, user_id: str, values: list[T]) -> list[T]:
        """A list stage: a veto empties it."""
        try:
            return list(self.run(stage, user_id, values))
        except Veto:
            return []

    def _warn(self, hook: Hook, stage: str, exc: Exception) -> None:
        self._warned(getattr(hook, "__qualname__", repr(hook)), stage, type(exc).__name__, exc, key=id(hook))
