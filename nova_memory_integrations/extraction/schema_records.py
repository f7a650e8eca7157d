"""A model's records of declared kinds, parsed through the application's pydantic models.

With declared schemas (``NovaStore(schemas=...)``) the prompt ``consolidation-schemas-v1``
(:mod:`.prompts`) lets the model answer what fits a declared kind as a record
(``{"kind": "allergy", "values": {"allergy": ["shellfish"], "allergy_severity": "severe"}}``).
:func:`record_proposals` turns one record into one proposal per stated value, each validated by
its model's field (:meth:`~nova_memory_integrations.memory.schemas.FieldRule.check`) and carried in the
model's canonical spelling. A value the model refuses, a field the model lacks or a kind nobody
declared becomes a proposal marked ``refused`` with the rule it broke: the consolidator records
it as a refused fact (never stores it), so nothing the model said is dropped silently. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..config import predicate_key
from ..errors import FactSchemaError
from ..memory.schemas import SchemaSet, kind_name
from .proposals import Proposal

__all__ = ["record_proposals"]

MAX_VALUE_CHARS = 200
"""Longer values are copied text, not a value (as the operations' objects: :data:`.llm.MAX_OBJECT_CHARS`)."""


def _text(value: Any) -> str:
    """A value of the model's JSON answer as a fact's object (text as is, anything else as JSON)."""
    return " ".join(value.split()) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def record_proposals(
    schemas: SchemaSet, kind: str, values: Mapping[str, Any], *, subject: str, valid_from: datetime | None,
    confidence: float, reason: str, metadata: Mapping[str, Any],
) -> list[Proposal]:
    """The proposals of one record of ``kind``: one per stated value (a list field's values one by one),
    accepted ones in the model's spelling, the rest ``refused`` with why."""
    kind_key = kind_name(kind) or "unknown"
    meta = {**metadata, "schema": kind_key}
    common: dict[str, Any] = {"valid_from": valid_from, "confidence": confidence, "metadata": meta,
                              "reason": f"llm record {kind_key}: {reason}" if reason else f"llm record {kind_key}"}
    model = schemas.kinds.get(kind_key)
    out: list[Proposal] = []
    for name, raw in values.items():
        rule = schemas.field(kind_key, str(name)) if model is not None else None
        stated = raw if isinstance(raw, (list, tuple)) and (rule is None or rule.many or rule.listed) else [raw]
        for value in stated:
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            text = _text(value)[:MAX_VALUE_CHARS]
            predicate = rule.predicate if rule is not None else (predicate_key(str(name)) or "unknown")
            if model is None:
                why = f"no declared schema {kind!r} (declared: {', '.join(sorted(schemas.kinds))})"
            elif rule is None:
                why = f"{model.__name__} has no field {name!r}"
            else:
                try:
                    out.append(Proposal(subject, predicate, rule.check(text), op="ADD", **common))
                    continue
                except FactSchemaError as exc:
                    why = exc.rule
            out.append(Proposal(subject, predicate, text, op="ADD", refused=why, **common))
    return out
