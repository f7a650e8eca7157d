"""Fixtures of the fast unit tests: a real SQLite system of record in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    """An empty SQLite store of record (real SQLite, closed after the test)."""
    store = SQLiteStore(tmp_path / "memory.sqlite3")
    yield store
    store.close()
