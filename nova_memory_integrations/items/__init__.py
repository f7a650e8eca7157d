"""Items: JSON documents kept by ``(user, scope, key)``, their vectors and hybrid search, as a
service over the engine's components (``NovaStore.items``; the LangGraph store's engine side)."""

from __future__ import annotations

from .service import ItemHit, ItemService, ItemWrite, StoredItem, TextsOf, check_items_embedding_space

__all__ = ["ItemHit", "ItemService", "ItemWrite", "StoredItem", "TextsOf", "check_items_embedding_space"]
