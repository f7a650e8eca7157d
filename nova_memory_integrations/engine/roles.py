"""Chat roles, at their old path: they live in :mod:`nova_memory_integrations.text.roles`.

The text layer sits below every service, so extraction, consolidation and recall read roles
without importing the engine; this module re-exports the same objects for callers of
``engine.roles``.
"""

from __future__ import annotations

from ..text.roles import GENERIC_ROLES, MACHINE_ROLES, USER_ROLES, is_named_speaker

__all__ = ["GENERIC_ROLES", "MACHINE_ROLES", "USER_ROLES", "is_named_speaker"]
