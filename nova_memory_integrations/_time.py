"""UTC time helpers. All stored times are timezone-aware UTC datetimes."""

from __future__ import annotations

import math
import reprlib
from datetime import datetime, timezone

from .errors import InvalidInputError

__all__ = ["EARLIEST", "LATEST", "from_epoch", "in_range", "to_epoch", "to_utc", "utcnow"]

EARLIEST = datetime(1700, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
"""The safe range of every stored time: ``EARLIEST <= t < LATEST``. Times are stored as float
seconds since the epoch, which round-trip to the exact microsecond only within 2**33 s of 1970
(1697-11 .. 2242-03); whole centuries inside that leave room for the engine's date arithmetic
(timezone offsets, "ten years ago", decay) far from ``datetime``'s year 1 / 9999 limits.
Writes outside it are refused (``InvalidInputError``); stored rows outside it are skipped."""
_EARLIEST_S, _LATEST_S = EARLIEST.timestamp(), LATEST.timestamp()


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def in_range(value: datetime) -> bool:
    """Whether an aware datetime lies in the safe range ``[EARLIEST, LATEST)``."""
    return EARLIEST <= value < LATEST


def to_utc(value: datetime | str, *, field: str = "timestamp") -> datetime:
    """Validate and convert a datetime (or ISO-8601 string) to aware UTC in the safe range.

    Raises:
        InvalidInputError: the value is naive, unparsable, not a datetime, or outside
            ``[EARLIEST, LATEST)`` (its UTC conversion may not even exist near year 1 / 9999).
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInputError(f"{field}: not an ISO-8601 datetime: {reprlib.repr(value)}", field=field) from exc
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field}: expected a datetime, got {type(value).__name__}", field=field)
    try:
        offset = value.tzinfo.utcoffset(value) if value.tzinfo is not None else None
        utc = None if offset is None else value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:  # e.g. year 1 at +05:00, or a tzinfo with an absurd offset
        raise InvalidInputError(f"{field}: {reprlib.repr(value)} has no UTC equivalent ({exc})", field=field) from exc
    if utc is None:
        raise InvalidInputError(
            f"{field}: naive datetime {value.isoformat()} - pass a timezone-aware value "
            "(e.g. datetime.now(timezone.utc))", field=field,
        )
    if not in_range(utc):
        raise InvalidInputError(
            f"{field}: {utc.isoformat()} is outside the supported range {EARLIEST.year}-01-01 .. {LATEST.year}-01-01",
            field=field,
        )
    return utc


def to_epoch(value: datetime | None) -> float | None:
    """Seconds since the epoch for an aware datetime (``None`` passes through)."""
    return None if value is None else value.timestamp()


def from_epoch(value: float | None) -> datetime | None:
    """Aware UTC datetime from seconds since the epoch (``None`` passes through).

    Raises:
        ValueError: not a finite number in the safe range (a damaged stored value).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"not a time: {value!r}")
    if not _EARLIEST_S <= value < _LATEST_S:
        raise ValueError(f"time {value!r} outside {EARLIEST.year}..{LATEST.year}")
    return datetime.fromtimestamp(value, timezone.utc)
