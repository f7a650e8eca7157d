"""Module paths from before the layered layout keep working, as the very same modules."""

from __future__ import annotations

import importlib

import pytest

from nova_memory_integrations._compat import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(f"nova_memory_integrations.{old}") is importlib.import_module(
        f"nova_memory_integrations.{new}")


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_keeps_the_module_spec(old: str) -> None:
    module = importlib.import_module(f"nova_memory_integrations.{old}")
    assert module.__spec__.name == f"nova_memory_integrations.{MOVED[old]}"


def test_names_used_by_the_old_cookbooks_import() -> None:
    from nova_memory_integrations.graph import FactGraph

    from nova_memory_integrations.memory.graph import FactGraph as Moved

    assert FactGraph is Moved


def test_an_unknown_module_is_still_missing() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("nova_memory_integrations.no_such_module")
