"""What ``NovaLangGraphStore`` checks and computes without touching storage: the namespace ->
user mapping, input validation, LangGraph filters and the texts an item is indexed by."""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchOp,
    get_text_at_path,
    tokenize_path,
)

from ..config import LimitsConfig
from ..engine.validation import MAX_METADATA_DEPTH, check_id
from ..errors import InvalidInputError

__all__ = [
    "MAX_VALUE_BYTES",
    "NamespaceError",
    "NamespaceMap",
    "check_op",
    "encode_value",
    "item_texts",
    "matches",
    "namespace_matches",
]

MAX_VALUE_BYTES = 1_048_576
"""Largest document one item may hold (its UTF-8 JSON encoding)."""
MAX_INDEX_PATHS = 64
"""Most field paths one item may be indexed by."""
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


class NamespaceError(InvalidInputError, InvalidNamespaceError):
    """A namespace breaks LangGraph's label rules or names no user (or another user) under the
    store's mapping. Both an :class:`~nova_memory_integrations.errors.InvalidInputError` and
    LangGraph's ``InvalidNamespaceError`` (so both ways of catching it work)."""


@dataclass(frozen=True)
class NamespaceMap:
    """How namespaces map to users: a bound user, a label position, or both.

    * ``user_id`` only: every namespace is a scope of that one user, stored as given.
    * ``position`` only: ``namespace[position]`` names the user; the scope is the rest.
    * both: ``namespace[position]`` must name the bound user (anything else is refused).
    """

    user_id: str | None
    position: int | None

    def locate(self, namespace: tuple[str, ...], limits: LimitsConfig) -> tuple[str, tuple[str, ...]]:
        """``(user, scope)`` of an item's namespace.

        Raises:
            NamespaceError: the namespace has no label at the user position, or names another user.
        """
        if self.position is None:
            assert self.user_id is not None
            return self.user_id, namespace
        if len(namespace) <= self.position:
            raise NamespaceError(
                f"namespace {reprlib.repr(namespace)} has no label at position {self.position}, where this "
                f"store reads the user id (e.g. ({'..., ' * self.position}user_id, ...))",
                field="namespace",
            )
        return self._user(namespace[self.position], limits), namespace[: self.position] + namespace[self.position + 1 :]

    def locate_prefix(self, prefix: tuple[str, ...], limits: LimitsConfig) -> tuple[str, tuple[str, ...]]:
        """``(user, scope prefix)`` of a search prefix (a bound user needs no label for it).

        Raises:
            NamespaceError: the prefix names no user (none is bound) or another user.
        """
        if self.position is None or len(prefix) > self.position:
            return self.locate(prefix, limits)
        if self.user_id is None:
            raise NamespaceError(
                f"namespace prefix {reprlib.repr(prefix)} does not reach position {self.position}, where this "
                "store reads the user id: a search or listing spans one user's items only",
                field="namespace",
            )
        return self.user_id, prefix

    def listing_user(self, conditions: Sequence[MatchCondition], limits: LimitsConfig) -> str | None:
        """The user whose namespaces a listing enumerates: the one a prefix names at the user position
        (not ``*``), else the bound user, else ``None``: every user's (an unbound store is server-side
        code that may name any user's namespace, so listing them all protects nothing).

        Raises:
            NamespaceError: a prefix names a label that is no user id, or another user than the bound one.
        """
        if self.position is not None:
            for cond in conditions:
                if cond.match_type == "prefix" and len(cond.path) > self.position and cond.path[self.position] != "*":
                    return self._user(cond.path[self.position], limits)
        return self.user_id

    def namespace(self, user_id: str, scope: tuple[str, ...]) -> tuple[str, ...] | None:
        """The namespace an item of ``user_id`` at ``scope`` has under this mapping (``None``: the
        scope, written through another mapping, is too short to hold the user's label)."""
        if self.position is None:
            return scope
        if len(scope) < self.position:
            return None
        return (*scope[: self.position], user_id, *scope[self.position :])

    def _user(self, label: str, limits: LimitsConfig) -> str:
        try:
            user = check_id(label, "user_id", limits)
        except InvalidInputError as exc:
            raise NamespaceError(
                f"namespace label {reprlib.repr(label)} is no user id: {exc}", field="namespace"
            ) from exc
        assert user is not None
        if self.user_id is not None and user != self.user_id:
            raise NamespaceError(
                f"namespace names user {reprlib.repr(user)} but this store is bound to another user", field="namespace"
            )
        return user


# -- validation ----------------------------------------------------------------------------------------------------
def _labels(path: Sequence[object], limits: LimitsConfig, what: str) -> None:
    """LangGraph's label rules (non-empty strings without ``.`` or NUL), within the id length limit."""
    if not isinstance(path, tuple):
        raise NamespaceError(f"{what} must be a tuple of strings, got {type(path).__name__}", field="namespace")
    for label in path:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise NamespaceError(
                f"{what} {reprlib.repr(path)}: labels must be non-empty strings without '.' or NUL", field="namespace"
            )
        if len(label) > limits.max_id_chars:
            raise NamespaceError(f"{what}: labels must be at most {limits.max_id_chars} characters", field="namespace")
        try:
            label.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise NamespaceError(f"{what}: label is not valid Unicode text", field="namespace") from exc


def _count(value: object, field: str, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"{field} must be an integer >= {minimum}, got {reprlib.repr(value)}", field=field)


def _key(key: object, limits: LimitsConfig) -> None:
    if not isinstance(key, str):
        raise InvalidInputError(f"key must be a string, got {type(key).__name__}", field="key")
    if len(key) > limits.max_content_chars or "\x00" in key:
        raise InvalidInputError(
            f"key must be NUL-free text of at most {limits.max_content_chars} characters", field="key"
        )
    try:
        key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError("key is not valid Unicode text", field="key") from exc


def _as_tuples(op: Op) -> Op:
    """The operation with its namespace paths as tuples (``BaseStore`` passes lists through as given)."""
    if isinstance(op, (GetOp, PutOp)) and isinstance(op.namespace, list):
        return op._replace(namespace=tuple(op.namespace))
    if isinstance(op, SearchOp) and isinstance(op.namespace_prefix, list):
        return op._replace(namespace_prefix=tuple(op.namespace_prefix))
    if isinstance(op, ListNamespacesOp) and op.match_conditions:
        return op._replace(
            match_conditions=tuple(
                c._replace(path=tuple(c.path)) if isinstance(c, MatchCondition) and isinstance(c.path, list) else c
                for c in op.match_conditions
            )
        )
    return op


def check_op(op: object, limits: LimitsConfig) -> Op:
    """Validate one operation before anything is read or written.

    Raises:
        NamespaceError: a namespace label is empty, holds ``.`` or NUL, is not a string.
        InvalidInputError: a bad key, value, index, filter, limit or offset.
        NotImplementedError: a ``PutOp`` with a ``ttl`` (this store keeps items until deleted).
    """
    if not isinstance(op, (GetOp, PutOp, SearchOp, ListNamespacesOp)):
        raise InvalidInputError(f"unknown store operation {type(op).__name__}", field="ops")
    op = _as_tuples(op)
    if isinstance(op, (GetOp, PutOp)):
        _labels(op.namespace, limits, "namespace")
        _key(op.key, limits)
    if isinstance(op, PutOp):
        if op.ttl is not None:
            raise NotImplementedError(
                "TTL is not supported by NovaLangGraphStore (supports_ttl is False): "
                "pass ttl=None; items live until deleted or their user is forgotten"
            )
        if op.value is not None and not isinstance(op.value, Mapping):  # the document: encode_value, when written
            raise InvalidInputError(
                f"value must be a mapping (a JSON object), got {type(op.value).__name__}", field="value"
            )
        if (
            op.index is not None
            and op.index is not False
            and (
                isinstance(op.index, (str, bytes))
                or not isinstance(op.index, (list, tuple))
                or len(op.index) > MAX_INDEX_PATHS
                or not all(isinstance(p, str) and p for p in op.index)
            )
        ):
            raise InvalidInputError(
                f"index must be False, None or a list of at most {MAX_INDEX_PATHS} non-empty field paths", field="index"
            )
    elif isinstance(op, SearchOp):
        _labels(op.namespace_prefix, limits, "namespace_prefix")
        if op.query is not None and not isinstance(op.query, str):
            raise InvalidInputError(f"query must be a string, got {type(op.query).__name__}", field="query")
        if op.filter is not None and (
            not isinstance(op.filter, Mapping) or not all(isinstance(k, str) for k in op.filter)
        ):
            raise InvalidInputError("filter must be a mapping with string keys", field="filter")
        _check_filter(op.filter or {})
        _count(op.limit, "limit")
        _count(op.offset, "offset")
    elif isinstance(op, ListNamespacesOp):
        for cond in op.match_conditions or ():
            if not isinstance(cond, MatchCondition) or cond.match_type not in ("prefix", "suffix"):
                raise InvalidInputError(
                    "match_conditions must be MatchCondition('prefix' | 'suffix', path)", field="match_conditions"
                )
            _labels(cond.path, limits, "match condition")
        if op.max_depth is not None:
            _count(op.max_depth, "max_depth", 1)
        _count(op.limit, "limit")
        _count(op.offset, "offset")
    return op


def encode_value(value: object) -> str:
    """The stored JSON text of a document, which must read back equal to it.

    Raises:
        InvalidInputError: not a mapping with string keys; holds something JSON cannot give back
            unchanged (a tuple, a set, a datetime, a non-string key, NaN / infinity); too deep or large.
    """
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"value must be a mapping (a JSON object), got {type(value).__name__}", field="value")
    plain = dict(value)
    if _too_deep(plain, MAX_METADATA_DEPTH):
        raise InvalidInputError(f"value nests deeper than {MAX_METADATA_DEPTH} levels", field="value")
    try:
        encoded = json.dumps(plain, ensure_ascii=False, allow_nan=False)
        encoded.encode("utf-8")
    except (TypeError, ValueError, RecursionError, UnicodeEncodeError) as exc:
        raise InvalidInputError(
            f"value must be a JSON document (dicts with string keys, lists, strings, finite "
            f"numbers, booleans, None): {exc}",
            field="value",
        ) from exc
    if len(encoded.encode("utf-8")) > MAX_VALUE_BYTES:
        raise InvalidInputError(f"value is larger than {MAX_VALUE_BYTES:,} bytes as JSON", field="value")
    if not _same(json.loads(encoded), plain):
        raise InvalidInputError(
            "value would not read back unchanged: use lists (not tuples), string keys and plain JSON types",
            field="value",
        )
    return encoded


def _too_deep(value: object, limit: int) -> bool:
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children: Any = item.values() if isinstance(item, Mapping) else item if isinstance(item, (list, tuple)) else ()
        if children and depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _same(loaded: object, given: object) -> bool:
    """Equal with the same JSON types all the way down (``True`` is not ``1``, ``[1]`` not ``(1,)``)."""
    if isinstance(given, Mapping):
        return (
            type(loaded) is dict
            and len(loaded) == len(given)
            and all(type(k) is str and k in loaded and _same(loaded[k], v) for k, v in given.items())
        )
    if isinstance(given, list):
        return type(loaded) is list and len(loaded) == len(given) and all(map(_same, loaded, given))
    if isinstance(given, bool) or given is None:
        return loaded is given
    for kind in (int, float, str):
        if isinstance(given, kind):
            return type(loaded) is kind and loaded == given
    return False


# -- texts ----------------------------------------------------------------------------------------------------------
def item_texts(value: Mapping[str, Any], paths: Sequence[str]) -> list[str]:
    """The texts an item is indexed by, one vector each: every path's text (``[*]`` paths give one
    per element), ``$`` the whole document as JSON; empty texts dropped."""
    out: list[str] = []
    for path in paths:
        if path == "$":
            texts = [json.dumps(value, ensure_ascii=False, sort_keys=True)]
        else:
            texts = get_text_at_path(value, tokenize_path(path))
        out.extend(t for t in texts if t and t.strip())
    return out


# -- filters and namespace matching ----------------------------------------------------------------------------------
def _check_filter(flt: Mapping[str, Any]) -> None:
    for value in flt.values():
        if isinstance(value, Mapping):
            ops = [k for k in value if isinstance(k, str) and k.startswith("$")]
            if ops:
                bad = [k for k in ops if k not in _OPERATORS]
                if bad:
                    raise InvalidInputError(
                        f"unsupported filter operator {reprlib.repr(bad[0])} (use {', '.join(sorted(_OPERATORS))})",
                        field="filter",
                    )
            else:
                _check_filter({k: v for k, v in value.items() if isinstance(k, str)})


_MISSING = object()


def _lookup(doc: Mapping[str, Any], key: str) -> Any:
    """``doc[key]``, else the dotted path ``key`` (``"user.level"``) into nested objects."""
    if key in doc:
        return doc[key]
    node: Any = doc
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def matches(doc: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """Whether a document passes a LangGraph filter: exact values (objects matched field by field,
    lists element by element) and ``$eq $ne $gt $gte $lt $lte``; a comparison with a missing or
    incomparable value does not match."""
    return not flt or all(_compare(_lookup(doc, k), v) for k, v in flt.items())


def _compare(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_apply(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, Mapping) and all(_compare(_lookup(value, k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, list) and len(value) == len(wanted) and all(_compare(v, w) for v, w in zip(value, wanted))
        )
    return value is not _MISSING and _equal(value, wanted)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _apply(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return value is not _MISSING and _equal(value, arg)
    if op == "$ne":
        return value is _MISSING or not _equal(value, arg)
    number = (int, float)
    if isinstance(value, bool) or isinstance(arg, bool):
        return False
    if isinstance(value, number) and isinstance(arg, number):
        a, b = float(value), float(arg)
        if math.isnan(a) or math.isnan(b):
            return False
    elif isinstance(value, str) and isinstance(arg, str):
        a, b = value, arg  # type: ignore[assignment]
    else:
        return False
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def namespace_matches(namespace: tuple[str, ...], cond: MatchCondition) -> bool:
    """Whether a namespace matches a prefix / suffix condition (``*`` matches any one label)."""
    path = tuple(cond.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if cond.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part))
