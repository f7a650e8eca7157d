"""Input validation for the public API: clear ``InvalidInputError``s before any write."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .._time import to_utc
from ..config import LimitsConfig
from ..errors import InvalidInputError
from ..types import Episode, new_id

__all__ = [
    "TURN_FIELDS", "check_content", "check_id", "check_ids", "check_metadata", "check_positive_int", "check_score",
    "check_texts", "check_timestamp", "check_turn", "check_user",
]


def check_id(value: object, field: str, limits: LimitsConfig, *, required: bool = True) -> str | None:
    """A user/session/agent id: a non-empty string without control characters."""
    if value is None:
        if required:
            raise InvalidInputError(f"{field} is required (memory is always scoped by {field})")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{field} must not be empty")
    if len(value) > limits.max_id_chars:
        raise InvalidInputError(f"{field} is longer than {limits.max_id_chars} characters")
    if any(ord(c) < 32 for c in value):
        raise InvalidInputError(f"{field} must not contain control characters")
    _check_utf8(value, field)
    return value


def _check_utf8(value: str, field: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{field} is not valid Unicode text (lone surrogate at {exc.start})") from exc


def check_ids(value: object, limits: LimitsConfig, field: str = "ids") -> list[str]:
    """A sequence of ids (not a bare string): every item a string within the id limit."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{field} must be a list of id strings, got {type(value).__name__}")
    out = []
    for item in value:
        if not isinstance(item, str) or len(item) > limits.max_id_chars:
            raise InvalidInputError(f"{field} must contain id strings of at most {limits.max_id_chars} characters")
        out.append(item)
    return out


def check_user(value: object, limits: LimitsConfig) -> str:
    """The required ``user_id``."""
    out = check_id(value, "user_id", limits)
    assert out is not None
    return out


def check_content(value: object, limits: LimitsConfig, field: str = "content") -> str:
    """Turn or fact text: a non-empty string within ``max_content_chars``."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{field} must not be empty or whitespace")
    if len(value) > limits.max_content_chars:
        raise InvalidInputError(
            f"{field} has {len(value):,} characters; the limit is {limits.max_content_chars:,}"
            " (limits.max_content_chars) - split long documents before storing them"
        )
    if "\x00" in value:
        raise InvalidInputError(f"{field} must not contain NUL characters")
    _check_utf8(value, field)
    return value


def check_metadata(value: object, limits: LimitsConfig) -> dict[str, Any]:
    """Metadata: a JSON-serialisable mapping with string keys within the size limit."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"metadata must be a mapping, got {type(value).__name__}")
    if not all(isinstance(k, str) for k in value):
        raise InvalidInputError("metadata keys must be strings")
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc
    _check_utf8(encoded, "metadata")
    if len(encoded.encode()) > limits.max_metadata_bytes:
        raise InvalidInputError(f"metadata is larger than {limits.max_metadata_bytes} bytes")
    loaded: dict[str, Any] = json.loads(encoded)
    return loaded


def check_timestamp(value: object, field: str = "timestamp") -> datetime | None:
    """An optional aware datetime (or ISO string), converted to UTC."""
    if value is None:
        return None
    if not isinstance(value, (datetime, str)):
        raise InvalidInputError(f"{field} must be a timezone-aware datetime, got {type(value).__name__}")
    return to_utc(value, field=field)


def check_score(value: object, field: str) -> float:
    """A number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{field} must be a finite number")
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(f"{field} must be between 0 and 1, got {value}")
    return float(value)


def check_positive_int(value: object, field: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (``bool`` is not an integer here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"{field} must be an integer >= {minimum}" if minimum != 1
                                else f"{field} must be a positive integer")
    return value


def check_texts(texts: object, limits: LimitsConfig, field: str = "texts") -> list[str]:
    """A list of at most ``limits.max_texts`` strings (a bare string is not a list of texts)."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidInputError(f"{field} must be a list of strings, not {type(texts).__name__}", field=field)
    if len(texts) > limits.max_texts:
        raise InvalidInputError(f"{field} has {len(texts)} items; limits.max_texts is {limits.max_texts}",
                                field=field)
    bad = next((i for i, text in enumerate(texts) if not isinstance(text, str)), None)
    if bad is not None:
        raise InvalidInputError(f"{field}[{bad}] must be a string, not {type(texts[bad]).__name__}", field=field)
    return list(texts)


TURN_FIELDS = frozenset({"user_id", "role", "content", "session_id", "timestamp", "metadata", "importance"})
"""The keys of one turn passed to ``NovaStore.add_turns``."""


def check_turn(turn: object, limits: LimitsConfig, now: datetime) -> Episode:
    """One turn mapping as a new :class:`Episode` (``now`` when it has no timestamp)."""
    if not isinstance(turn, Mapping):
        raise InvalidInputError(f"each turn must be a mapping, got {type(turn).__name__}")
    unknown = set(turn) - TURN_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown turn fields: {sorted(unknown)}")
    role = check_id(turn.get("role"), "role", limits)
    importance = turn.get("importance")
    return Episode(
        id=new_id("ep"),
        user_id=check_user(turn.get("user_id"), limits),
        session_id=check_id(turn.get("session_id"), "session_id", limits, required=False),
        role=(role or "").strip().lower(),
        content=check_content(turn.get("content"), limits),
        timestamp=check_timestamp(turn.get("timestamp")) or now,
        ingested_at=now,
        metadata=check_metadata(turn.get("metadata"), limits),
        importance=0.5 if importance is None else check_score(importance, "importance"),
    )
