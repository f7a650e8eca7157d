"""Storage layer: SQLite (system of record) and the Chroma vector index (a view)."""

from __future__ import annotations

from .sqlite import SQLiteStore
from .vectors import VectorIndex

__all__ = ["SQLiteStore", "VectorIndex"]
