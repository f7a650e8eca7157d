"""``NovaStore``'s methods about the application's declared schemas (a mixin of the facade).

The models themselves, and how they map onto declared predicates, are :mod:`..memory.schemas`; the
gate every consolidated value passes is :mod:`..consolidation.schema_gate`. Here: declaring
more models on an open store (what an adapter given ``schemas=`` does with a shared store),
the refused facts, and the predicates a ``facts(schema=...)`` filter means.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import InvalidInputError
from ..memory.schemas import declared_with, kind_name, kind_of
from ..types import RefusedFact
from .validation import check_positive_int, check_user

if TYPE_CHECKING:
    from .components import Components

__all__ = ["SchemaSelector", "SchemasAPI"]

SchemaSelector = type[BaseModel] | str | Iterable[type[BaseModel] | str]
"""What ``facts(schema=...)`` takes: a declared model, a kind's name (``"allergy"``, or any
``kind`` a declared predicate names), or a list of them."""


class SchemasAPI:
    """``NovaStore``'s schema methods (a mixin: ``self.components`` and ``_check_open`` are the facade's)."""

    components: Components

    def _check_open(self) -> None: ...

    def declare_schemas(self, schemas: Iterable[type[BaseModel]]) -> None:
        """Declare more pydantic models on this open store (as ``NovaStore(schemas=...)`` does at
        open): from now on their facts are validated, their fields are declared predicates, and
        ``facts(schema=...)`` knows them. A model declared again changes nothing.

        Raises:
            SchemaError: not pydantic models, or a predicate spelling another declaration holds.
        """
        self._check_open()
        facts = self.components.config.facts
        update = declared_with(facts, schemas)
        facts.predicates = update["predicates"]  # validated on assignment; every component reads this object
        facts.schemas = update["schemas"]

    def refused_facts(self, user_id: str, *, kind: str | None = None, limit: int = 100) -> list[RefusedFact]:
        """Facts consolidation did not store because a declared model refused them (newest first):
        the fact, the rule it broke, the episode it came from. ``kind``: one schema's only."""
        self._check_open()
        uid = check_user(user_id, self.components.config.limits)
        check_positive_int(limit, "limit")
        return self.components.db.refused_facts(uid, kind=None if kind is None else kind_name(str(kind)),
                                                limit=limit)

    def _schema_predicates(self, schema: SchemaSelector | None, predicates: list[str] | None) -> list[str] | None:
        """The stored predicates ``facts(schema=..., predicates=...)`` keeps (both filters apply).

        Raises:
            InvalidInputError: a model or kind no declaration names.
        """
        if schema is None:
            return predicates
        wanted = [schema] if isinstance(schema, (str, type)) else list(schema)
        declared = self.components.config.facts.predicates
        kinds = {p.kind for p in declared if p.kind}
        keep: list[str] = []
        for item in wanted:
            kind = _kind_name(item)
            if kind not in kinds:
                known = ", ".join(sorted(kinds)) or "none (NovaStore(schemas=[...]) declares them)"
                raise InvalidInputError(f"schema {kind!r} is not declared; declared kinds: {known}", field="schema")
            keep += [key for p in declared if p.kind == kind for key in p.keys]
        return keep if predicates is None else [p for p in predicates if p in set(keep)]


def _kind_name(item: Any) -> str:
    """The kind a ``schema`` filter item names.

    Raises:
        InvalidInputError: neither a pydantic model nor a name.
    """
    if isinstance(item, type) and issubclass(item, BaseModel):
        return kind_of(item)
    if isinstance(item, str) and kind_name(item):
        return kind_name(item)
    raise InvalidInputError(f"schema is a declared pydantic model or a kind's name, not {item!r}", field="schema")
