"""Input validation for the public API: clear ``InvalidInputError``s before any write.

This is the one validation boundary of the hostile-input rules (#20): every argument of a
public method is checked here for type, range and encoding before the engine sees it, and
:func:`printable` is what any stored text is reduced to before it is rendered or printed.
"""

from __future__ import annotations

import functools
import json
import math
import re
import reprlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from inspect import Parameter, isfunction, signature
from typing import Any, TypeAlias, TypeVar

from pydantic import ValidationError

from .._time import EARLIEST, LATEST, to_utc
from ..config import LimitsConfig
from ..errors import InvalidInputError, WrongStoreError
from ..memory.importance import SOURCES, assess, source_of
from ..types import Episode, MemorySource, new_id

__all__ = [
    "MAINTENANCE_ARGUMENTS", "MAX_COUNT", "MAX_HOPS", "MAX_K", "MAX_METADATA_DEPTH", "STORE_ARGUMENTS", "TURN_FIELDS",
    "check_content", "check_epoch", "check_flag", "check_id", "check_ids", "check_kinds", "check_metadata",
    "check_name", "check_positive_int", "check_score", "check_source", "check_texts", "check_timestamp", "check_turn",
    "check_user", "checked_arguments", "model_input", "printable", "require_store",
]

MAX_METADATA_DEPTH = 32
"""Deepest nesting of lists / mappings in ``metadata`` (JSON encoding recurses once per level)."""
MAX_K = 10_000
"""Most results one ``search`` / ``retrieve`` / ``rules`` call returns (``k``)."""
MAX_HOPS = 100
"""Most hops a graph ``traverse`` walks."""
MAX_COUNT = 1_000_000_000
"""Any other count (token budgets, limits): far above use, far below SQLite's 64-bit integers."""
MEMORY_KINDS = ("episode", "fact", "rule")
_Store = TypeVar("_Store")

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
"""C0 controls but tab and newline, DEL, C1 controls, lone surrogates and the two non-characters
XML forbids: what may never reach a rendered context or a terminal raw."""


def printable(text: str) -> str:
    """``text`` without control characters (ESC, BEL, C1 ...); a lone surrogate or an XML
    non-character becomes U+FFFD. Tab and newline are kept."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: "\ufffd" if m.group() >= "\ud800" else "", text)


def check_id(value: object, field: str, limits: LimitsConfig, *, required: bool = True) -> str | None:
    """A user/session/agent id: a non-empty string without control characters."""
    if value is None:
        if required:
            raise InvalidInputError(f"{field} is required (memory is always scoped by {field})", field=field)
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}", field=field)
    if not value.strip():
        raise InvalidInputError(f"{field} must not be empty", field=field)
    if len(value) > limits.max_id_chars:
        raise InvalidInputError(f"{field} is longer than {limits.max_id_chars} characters", field=field)
    if any(ord(c) < 32 for c in value):
        raise InvalidInputError(f"{field} must not contain control characters", field=field)
    _check_utf8(value, field)
    return value


def _check_utf8(value: str, field: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{field} is not valid Unicode text (lone surrogate at {exc.start})",
                                field=field) from exc


def check_ids(value: object, limits: LimitsConfig, field: str = "ids") -> list[str]:
    """A sequence of ids (not a bare string): every item a string within the id limit."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{field} must be a list of id strings, got {type(value).__name__}", field=field)
    out = []
    for item in value:
        if not isinstance(item, str) or len(item) > limits.max_id_chars:
            raise InvalidInputError(f"{field} must contain id strings of at most {limits.max_id_chars} characters",
                                    field=field)
        _check_utf8(item, field)
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
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}", field=field)
    if not value.strip():
        raise InvalidInputError(f"{field} must not be empty or whitespace", field=field)
    if len(value) > limits.max_content_chars:
        raise InvalidInputError(
            f"{field} has {len(value):,} characters; the limit is {limits.max_content_chars:,}"
            " (limits.max_content_chars) - split long documents before storing them", field=field,
        )
    if "\x00" in value:
        raise InvalidInputError(f"{field} must not contain NUL characters", field=field)
    _check_utf8(value, field)
    return value


def check_name(value: object, limits: LimitsConfig, field: str) -> str | None:
    """An optional name (a subject, predicate, entity or preset): ``None`` or non-empty text."""
    return None if value is None else check_content(value, limits, field)


def _depth_over(value: object, limit: int) -> bool:
    """Whether lists / mappings nest deeper than ``limit`` (iterative: no recursion to overflow)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def check_metadata(value: object, limits: LimitsConfig) -> dict[str, Any]:
    """Metadata: a JSON-serialisable mapping with string keys within the size and depth limits."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"metadata must be a mapping, got {type(value).__name__}", field="metadata")
    if not all(isinstance(k, str) for k in value):
        raise InvalidInputError("metadata keys must be strings", field="metadata")
    if _depth_over(value, MAX_METADATA_DEPTH):
        raise InvalidInputError(f"metadata nests deeper than {MAX_METADATA_DEPTH} levels", field="metadata")
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}", field="metadata") from exc
    _check_utf8(encoded, "metadata")
    if len(encoded.encode()) > limits.max_metadata_bytes:
        raise InvalidInputError(f"metadata is larger than {limits.max_metadata_bytes} bytes", field="metadata")
    loaded: dict[str, Any] = json.loads(encoded)
    return loaded


def check_timestamp(value: object, field: str = "timestamp") -> datetime | None:
    """An optional aware datetime (or ISO string), converted to UTC, within the safe range
    (``_time.EARLIEST`` .. ``_time.LATEST``)."""
    if value is None:
        return None
    if not isinstance(value, (datetime, str)):
        raise InvalidInputError(f"{field} must be a timezone-aware datetime, got {type(value).__name__}",
                                field=field)
    return to_utc(value, field=field)


def check_epoch(value: object, field: str) -> float:
    """A stored time (seconds since the epoch, as export writes it): a finite number in the
    safe range ``[_time.EARLIEST, _time.LATEST)``, so it converts back to a datetime."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{field} must be a finite number", field=field)
    if not EARLIEST.timestamp() <= value < LATEST.timestamp():
        raise InvalidInputError(
            f"{field}: {value!r} is outside the supported range {EARLIEST.year}-01-01 .. {LATEST.year}-01-01",
            field=field)
    return float(value)


def check_score(value: object, field: str) -> float:
    """A number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{field} must be a finite number", field=field)
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(f"{field} must be between 0 and 1, got {value}", field=field)
    return float(value)


def check_positive_int(value: object, field: str, *, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """An integer in ``[minimum, maximum]`` (``bool`` is not an integer here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"{field} must be an integer >= {minimum}" if minimum != 1
                                else f"{field} must be a positive integer", field=field)
    if value > maximum:
        raise InvalidInputError(f"{field} must be at most {maximum:,}, got {value:,}", field=field)
    return value


def check_flag(value: object, field: str) -> bool:
    """A ``bool`` argument (``0`` / ``1`` accepted)."""
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InvalidInputError(f"{field} must be True or False, got {type(value).__name__}", field=field)


def check_kinds(value: object, field: str = "kinds") -> tuple[str, ...]:
    """A non-empty list of memory kinds (``episode``, ``fact``, ``rule``)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)) or not items:
        raise InvalidInputError(f"{field} must be a non-empty list of {', '.join(MEMORY_KINDS)}", field=field)
    bad = [k for k in items if not isinstance(k, str) or k not in MEMORY_KINDS]
    if bad:
        raise InvalidInputError(f"{field}: unknown kind {reprlib.repr(bad[0])} (use {', '.join(MEMORY_KINDS)})",
                                field=field)
    return tuple(dict.fromkeys(items))


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


TURN_FIELDS = frozenset({"user_id", "role", "content", "session_id", "timestamp", "metadata", "importance",
                         "source"})
"""The keys of one turn passed to ``NovaStore.add_turns``."""


def check_turn(turn: object, limits: LimitsConfig, now: datetime) -> Episode:
    """One turn mapping as a new :class:`Episode` (``now`` when it has no timestamp)."""
    if not isinstance(turn, Mapping):
        raise InvalidInputError(f"each turn must be a mapping, got {type(turn).__name__}", field="turns")
    unknown = set(turn) - TURN_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown turn fields: {sorted(unknown, key=repr)}", field="turns")
    role = (check_id(turn.get("role"), "role", limits) or "").strip().lower()
    content = check_content(turn.get("content"), limits)
    source = check_source(turn.get("source")) or source_of(content, role)
    importance = turn.get("importance")
    return Episode(
        id=new_id("ep"),
        user_id=check_user(turn.get("user_id"), limits),
        session_id=check_id(turn.get("session_id"), "session_id", limits, required=False),
        role=role,
        content=content,
        timestamp=check_timestamp(turn.get("timestamp")) or now,
        ingested_at=now,
        metadata=check_metadata(turn.get("metadata"), limits),
        importance=(assess(content, explicit=source == "explicit").value if importance is None
                    else check_score(importance, "importance")),
        source=source,
    )


def check_source(source: object) -> MemorySource | None:
    """``source`` if it is one of :data:`~..memory.importance.SOURCES` (``None`` stays ``None``).

    Raises:
        InvalidInputError: anything else.
    """
    if source is None:
        return None
    if not isinstance(source, str) or source not in SOURCES:
        raise InvalidInputError(f"source must be one of {', '.join(SOURCES)}, not {reprlib.repr(source)}",
                                field="source")
    return source  # type: ignore[return-value]


@contextmanager
def model_input(what: str) -> Iterator[None]:
    """Turn pydantic's ``ValidationError`` (an adapter's constructor or per-call overrides) into
    :class:`InvalidInputError` naming the first offending field, so adapters raise the library's
    own error type like every public method."""
    try:
        yield
    except ValidationError as exc:
        errors = exc.errors()
        inner = errors[0].get("ctx", {}).get("error") if errors else None
        if isinstance(inner, InvalidInputError):  # raised by a nested constructor already wrapped here
            raise inner from exc
        field = ".".join(str(part) for part in errors[0]["loc"]) if errors else None
        message = errors[0]["msg"] if errors else str(exc)
        raise InvalidInputError(f"{what}: {message} ({field or 'arguments'})", field=field or None) from exc


def require_store(store: object, expected: type[_Store], owner: str, *, optional: bool = False) -> _Store:
    """``store`` when it is an ``expected`` (the ``NovaStore`` class, passed in: the engine never imports
    the facade); else :class:`~nova_memory_integrations.errors.WrongStoreError` (a ``TypeError``) naming
    what to pass.

    Args:
        store: what an adapter was given.
        expected: the class it needs.
        owner: the adapter, named in the message (``"NovaRetriever"``).
        optional: the adapter also takes no store (the shared default store).
    """
    if isinstance(store, expected):
        return store
    need = expected.__name__
    got = type(store).__name__
    default = f", or no store for the shared one at $NOVA_MEMORY_HOME ({owner}())" if optional else ""
    hint = ""
    if got == "NovaLangGraphStore":
        hint = f" (a NovaLangGraphStore is LangGraph's BaseStore for create_agent(store=...); pass the {need} it " \
               "was built on)"
    elif isinstance(store, str) or hasattr(store, "__fspath__"):
        hint = f" (a path: open it first, {need}(path))"
    raise WrongStoreError(f'{owner} needs a {need}: {owner}({need}("./memory"), ...){default}; got {got}{hint}')


# -- the facade's arguments, each check declared for its parameter ----------------------------------------------------
Check: TypeAlias = Callable[[object, str, LimitsConfig], None]
"""A check of one argument: ``(value, parameter name, limits)``; raises ``InvalidInputError``."""


def _optional(check: Check) -> Check:
    def run(value: object, field: str, limits: LimitsConfig) -> None:
        if value is not None:
            check(value, field, limits)
    return run


def _text(value: object, field: str, limits: LimitsConfig) -> None:
    if not isinstance(value, str):
        raise InvalidInputError(f"{field} must be a string, got {type(value).__name__}", field=field)
    _check_utf8(value, field)


def _number(low: float, high: float) -> Check:
    def run(value: object, field: str, limits: LimitsConfig) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise InvalidInputError(f"{field} must be a number between {low:g} and {high:g}", field=field)
    return run


def _count(minimum: int, maximum: int) -> Check:
    def run(value: object, field: str, limits: LimitsConfig) -> None:
        if value is not None:
            check_positive_int(value, field, minimum=minimum, maximum=maximum)
    return run


def _names(value: object, field: str, limits: LimitsConfig) -> None:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{field} must be a list of strings, got {type(value).__name__}", field=field)
    for item in value:
        check_content(item, limits, field)


def _iterable(value: object, field: str, limits: LimitsConfig) -> None:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{field} must be a list of mappings, got {type(value).__name__}", field=field)


def _choice(*allowed: str) -> Check:
    def run(value: object, field: str, limits: LimitsConfig) -> None:
        if value is not None and (not isinstance(value, str) or value not in allowed):
            raise InvalidInputError(f"{field} must be one of {', '.join(allowed)}, not {reprlib.repr(value)}",
                                    field=field)
    return run


def _flag(value: object, field: str, limits: LimitsConfig) -> None:
    check_flag(value, field)


def _id(required: bool) -> Check:
    def run(value: object, field: str, limits: LimitsConfig) -> None:
        check_id(value, field, limits, required=required)
    return run


def _content(value: object, field: str, limits: LimitsConfig) -> None:
    check_content(value, limits, field)


def _ids(value: object, field: str, limits: LimitsConfig) -> None:
    check_ids(value, limits, field)


def _kinds(value: object, field: str, limits: LimitsConfig) -> None:
    check_kinds(value, field)


SESSION_ID, FACT_ID, IDS, KINDS = _id(False), _id(True), _ids, _kinds
NAME, NAMES, CONTENT, TEXT, TURNS = _optional(_content), _optional(_names), _content, _text, _iterable
K, HOPS, COUNT = _count(1, MAX_K), _count(0, MAX_HOPS), _count(1, MAX_COUNT)
SIMILARITY, TIMEOUT = _number(-1.0, 1.0), _optional(_number(0.0, 1e9))
FLAG, OPTIONAL_FLAG, CONSOLIDATION = _flag, _optional(_flag), _choice("immediate", "background", "manual")

STORE_ARGUMENTS: dict[str, dict[str, Check]] = {
    "flush": {"timeout": TIMEOUT},
    "add_turn": {"session_id": SESSION_ID, "consolidation": CONSOLIDATION},
    "add_turns": {"turns": TURNS, "consolidation": CONSOLIDATION},
    "episodes": {"session_id": SESSION_ID, "limit": COUNT, "newest_first": FLAG},
    "add_fact": {"subject": NAME, "predicate": NAME, "source_episode_ids": IDS},
    "invalidate_fact": {"fact_id": FACT_ID, "reason": CONTENT},
    "facts": {"subject": NAME, "predicate": NAME, "include_history": FLAG, "predicates": NAMES},
    "fact_history": {"fact_id": FACT_ID},
    "decisions": {"limit": COUNT},
    "traverse": {"start": CONTENT, "max_hops": HOPS, "predicates": NAMES},
    "rules": {"context": NAME, "k": K, "min_similarity": SIMILARITY},
    "conflicts": {"flagged_only": FLAG, "limit": COUNT},
    "explain_confidence": {"fact_id": FACT_ID},
    "search": {"query": TEXT, "k": K, "kinds": KINDS, "session_id": SESSION_ID},
    "retrieve": {"query": TEXT, "k": K, "kinds": KINDS, "session_id": SESSION_ID, "rerank": OPTIONAL_FLAG},
    "context": {"query": TEXT, "budget_tokens": COUNT, "session_id": SESSION_ID, "kinds": KINDS},
    "compress": {"query": TEXT, "budget_tokens": COUNT, "k": K, "max_item_tokens": COUNT},
    "count_tokens": {"text": TEXT},
}
"""``NovaStore``'s declared argument checks: method -> parameter -> check (type, range, encoding), run
whenever the argument is given; the method's own body then says what is required and converts values
(``user_id``, ``content``, ``metadata`` ... are checked there, by the ``check_*`` functions above)."""
MAINTENANCE_ARGUMENTS: dict[str, dict[str, Check]] = {"users": {"unconsolidated": FLAG}}
"""The same for the maintenance mixin (``maintenance/api.MaintenanceAPI``)."""

C = TypeVar("C", bound=type)


def checked_arguments(declared: Mapping[str, Mapping[str, Check]]) -> Callable[[C], C]:
    """Class decorator: each method named in ``declared`` runs the checks declared for its
    parameters (against ``self.config.limits``) before its body; ``None`` is accepted only where
    the parameter's default is ``None``.

    A check is bound to a parameter by this declaration, never by the parameter's name alone, and the
    declaration is verified when the class is made: a declared method the class does not define, or a
    declared parameter its signature lacks, is a ``TypeError`` at import. So renaming a parameter
    without its declaration fails loudly instead of silently dropping (or gaining) a check.
    """
    def decorate(cls: C) -> C:
        for name, checks in declared.items():
            fn = vars(cls).get(name)
            if name.startswith("_") or not isfunction(fn):
                raise TypeError(f"{cls.__name__}.{name}: argument checks are declared for it, but the class "
                                "defines no public method of that name")
            setattr(cls, name, _checking(fn, _bind(cls.__name__, fn, checks)))
        return cls
    return decorate


_BINDABLE = (Parameter.POSITIONAL_OR_KEYWORD, Parameter.KEYWORD_ONLY)


def _bind(owner: str, fn: Callable[..., Any], checks: Mapping[str, Check]) -> list[tuple[int | None, str, bool, Check]]:
    """``(positional index or None, name, None allowed, check)`` per declared parameter, in signature order."""
    params = list(signature(fn).parameters.values())[1:]
    named = {p.name: p for p in params if p.kind in _BINDABLE}
    unknown = sorted(set(checks) - set(named))
    if unknown:
        raise TypeError(f"{owner}.{fn.__name__} has no parameter {', '.join(map(repr, unknown))}, but a check is "
                        f"declared for it: rename the declaration with the parameter (its parameters: "
                        f"{', '.join(p.name for p in params)})")
    return [(i if p.kind is Parameter.POSITIONAL_OR_KEYWORD else None, p.name, p.default is None, checks[p.name])
            for i, p in enumerate(params) if p.name in checks]


def _checking(fn: Callable[..., Any], checks: list[tuple[int | None, str, bool, Check]]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        limits = self.config.limits
        for index, name, nullable, check in checks:
            if name in kwargs:
                value = kwargs[name]
            elif index is not None and index < len(args):
                value = args[index]
            else:
                continue
            if isinstance(value, Iterator):  # one-shot: checked and passed on as one list, not used up here
                value = list(value)
                if name in kwargs:
                    kwargs[name] = value
                else:
                    args = (*args[:index], value, *args[index + 1:])  # type: ignore[operator]
            if value is not None:
                check(value, name, limits)
            elif not nullable:
                raise InvalidInputError(f"{name} must not be None", field=name)
        return fn(self, *args, **kwargs)
    return method
