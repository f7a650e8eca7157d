"""UTC time helpers. All stored times are timezone-aware UTC datetimes."""

from __future__ import annotations

from datetime import datetime, timezone

from .errors import InvalidInputError

__all__ = ["from_epoch", "to_epoch", "to_utc", "utcnow"]


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def to_utc(value: datetime | str, *, field: str = "timestamp") -> datetime:
    """Validate and convert a datetime (or ISO-8601 string) to aware UTC.

    Raises:
        InvalidInputError: the value is naive, unparsable or not a datetime.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInputError(f"{field}: not an ISO-8601 datetime: {value!r}") from exc
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field}: expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise InvalidInputError(
            f"{field}: naive datetime {value.isoformat()} - pass a timezone-aware value "
            "(e.g. datetime.now(timezone.utc))"
        )
    return value.astimezone(timezone.utc)


def to_epoch(value: datetime | None) -> float | None:
    """Seconds since the epoch for an aware datetime (``None`` passes through)."""
    return None if value is None else value.timestamp()


def from_epoch(value: float | None) -> datetime | None:
    """Aware UTC datetime from seconds since the epoch (``None`` passes through)."""
    return None if value is None else datetime.fromtimestamp(value, timezone.utc)
