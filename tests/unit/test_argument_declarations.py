"""Every parameter of the facade's public methods is accounted for: a check declared for it in
``engine/validation`` (``STORE_ARGUMENTS``, ``MAINTENANCE_ARGUMENTS``), or listed below as checked by
the method's own body. Checks are bound by declaration, not by parameter name, so a parameter added
or renamed without a decision fails here (and a declared one renamed fails at import)."""

from __future__ import annotations

from inspect import isfunction, signature

import pytest

from nova_memory_integrations.engine.blocks import BlocksAPI
from nova_memory_integrations.engine.validation import MAINTENANCE_ARGUMENTS, STORE_ARGUMENTS
from nova_memory_integrations.maintenance.api import MaintenanceAPI
from nova_memory_integrations.store import NovaStore

CHECKED_IN_THE_BODY: dict[str, set[str]] = {
    "add_turn": {"user_id", "role", "content", "timestamp", "metadata", "importance", "source"},
    "episodes": {"user_id", "since", "until"},
    "get_episodes": {"user_id", "ids"},
    "add_fact": {"user_id", "object", "confidence", "valid_from", "metadata", "importance", "source"},
    "invalidate_fact": {"user_id", "at"},
    "facts": {"user_id", "as_of", "known_at", "schema"},
    "fact_history": {"user_id"},
    "decisions": {"user_id"},
    "traverse": {"user_id", "as_of"},
    "add_rule": {"user_id", "condition", "action", "confidence", "metadata"},
    "rules": {"user_id"},
    "consolidate": {"user_id", "llm"},
    "dead_letters": {"user_id"},
    "retry_dead_letters": {"user_id", "llm"},
    "conflicts": {"user_id"},
    "explain_confidence": {"user_id", "at"},
    "search": {"user_id", "as_of"},
    "retrieve": {"user_id", "as_of", "preset"},
    "context": {"user_id", "as_of", "format", "preset"},
    "compress": {"texts"},
    "stats": {"user_id"},
    "forget": {"user_id"},
    "delete": {"user_id", "ids"},
    "hide": {"user_id", "ids"},
    "restore": {"user_id", "ids"},
    "hidden": {"user_id"},
    "export": {"dest", "user_id"},
    "import_": {"source", "kw"},
    "apply_lifecycle": {"user_id", "kw"},
    "set_block": {"user_id", "name", "content", "limit", "author"},
    "append_to_block": {"user_id", "name", "text", "author"},
    "block": {"user_id", "name", "as_of"},
    "blocks": {"user_id", "as_of", "name"},
    "block_history": {"user_id", "name"},
    "delete_block": {"user_id", "name"},
}
"""Method -> its parameters that no declared check covers (``check_user``, ``check_metadata`` ... in the body)."""
CLASSES = ((NovaStore, STORE_ARGUMENTS), (MaintenanceAPI, MAINTENANCE_ARGUMENTS), (BlocksAPI, {}))


def _undeclared() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for cls, declared in CLASSES:
        for name, fn in vars(cls).items():
            if name.startswith("_") or not isfunction(fn):
                continue
            params = list(signature(getattr(fn, "__wrapped__", fn)).parameters)[1:]
            left = set(params) - set(declared.get(name, {}))
            if left:
                out[name] = left
    return out


def test_every_parameter_of_the_facade_is_declared_or_checked_in_its_body() -> None:
    assert _undeclared() == CHECKED_IN_THE_BODY


@pytest.mark.parametrize(("cls", "name"), [(cls, name) for cls, declared in CLASSES for name in declared])
def test_every_declared_method_runs_its_checks(cls: type, name: str) -> None:
    assert vars(cls)[name].__wrapped__.__name__ == name
