"""Schemas the application declares as pydantic models: what it wants remembered, and how.

Setup:
    Nothing beyond the package (pydantic is a dependency).

Instantiate:
    .. code-block:: python

        from typing import Literal
        from pydantic import BaseModel, ConfigDict, Field

        class Allergy(BaseModel):
            \"\"\"What the user must never be given.\"\"\"
            model_config = ConfigDict(json_schema_extra={"importance": 5})
            allergy: list[str] = Field(default_factory=list, json_schema_extra={"synonyms": ["allergic_to"]})
            allergy_severity: Literal["mild", "moderate", "severe"] | None = None

        store = NovaStore("./memory", schemas=[Allergy])

Usage:
    .. code-block:: python

        store.add_fact("alice", "user", "allergy_severity", "severe")   # stored
        store.add_fact("alice", "user", "allergy_severity", "deadly")   # FactSchemaError, nothing stored
        store.facts("alice", schema=Allergy)                            # the Allergy facts only
        store.refused_facts("alice")                                    # what consolidation refused

A model is a *kind* (its class name in snake case, ``FoodAllergy`` -> ``food_allergy``; its
``__doc__`` the description) and each field an attribute, stored as facts of the predicate of
the field's name (or alias). Every model maps onto the :class:`~..config.Predicate` machinery
here, once, so what is built on declared predicates (synonyms, cardinality, importance, the
declared reader, ``facts(predicates=)``) works for models unchanged:

- cardinality: a ``list`` / ``set`` / ``tuple`` field, or ``"many": True`` in the class's or the
  field's ``json_schema_extra``, holds many values (they add up); any other field one (a new value
  supersedes the old);
- importance (1-5) and synonyms: ``json_schema_extra`` of the class (every field) or of the field;
- allowed values: the field's type, as pydantic validates it (``Literal``, ``Enum``, constrained
  types, the model's field validators).

Each fact of a declared kind is validated before it is stored (:meth:`SchemaSet.check`), with
the model's own validator (``validate_assignment`` on one field: the field's type, constraints
and field validators), and stored in the canonical spelling the model gives back (an ``Enum``'s
value, ``"72.5"`` for a float). What does not fit raises :class:`~..errors.FactSchemaError`; the
consolidator records it as refused rather than storing it wrong. Pure: no I/O.
"""

from __future__ import annotations

import enum
import functools
import json
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from ..config import FactConfig, NovaConfig, Predicate, check_schema, predicate_key
from ..errors import FactSchemaError, SchemaError

__all__ = ["FieldRule", "SchemaSet", "check_models", "declared_with", "kind_name", "kind_of", "schema_predicates",
           "schema_set", "with_schemas"]

_MANY_ORIGINS = (list, set, frozenset, tuple)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def kind_name(name: str) -> str:
    """A model's name, or a kind as written, as the kind (``FoodAllergy``, ``food allergy`` -> ``food_allergy``)."""
    return predicate_key(_CAMEL.sub("_", name))


def kind_of(model: type[BaseModel]) -> str:
    """The kind a model declares: its class name in snake case (``FoodAllergy`` -> ``food_allergy``)."""
    return kind_name(model.__name__)


def _extra(source: Any) -> dict[str, Any]:
    """A ``json_schema_extra`` as a dict (a callable one, which only edits JSON schemas, says nothing)."""
    return dict(source) if isinstance(source, Mapping) else {}


def _is_many(annotation: Any) -> bool:
    """Whether a field's type holds several values (``list[str]``, ``set[Drug] | None`` ...)."""
    origin = get_origin(annotation)
    if origin in _MANY_ORIGINS or annotation in _MANY_ORIGINS:
        return True
    if origin is Annotated:
        return _is_many(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return any(_is_many(a) for a in get_args(annotation) if a is not type(None))
    return False


_PLAIN = TypeAdapter(Any)
"""Dumps any validated value as JSON-able Python (pydantic's own rules: dates as ISO text ...)."""


def _render(value: Any) -> str:
    """A validated value as a fact's object: an Enum's value, text as is, anything else as JSON."""
    if isinstance(value, enum.Enum):
        value = value.value
    plain = _PLAIN.dump_python(value, mode="json")
    return plain if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False)


def _why(exc: ValidationError) -> str:
    """The first thing pydantic said was wrong, without the input echoed back."""
    first = exc.errors(include_url=False)[0]
    allowed = (first.get("ctx") or {}).get("expected")
    return f"{first['msg']}" + (f" (allowed: {allowed})" if allowed and str(allowed) not in first["msg"] else "")


@functools.cache
def _assignable(model: type[BaseModel]) -> type[BaseModel]:
    """``model``, or for a frozen one a subclass that accepts assignment (same fields and validators):
    a value is validated by assigning it to one field of an empty instance."""
    if not model.model_config.get("frozen"):
        return model
    return type(model.__name__, (model,), {"model_config": ConfigDict(frozen=False), "__module__": model.__module__})


@functools.cache
def _field_type(model: type[BaseModel], field: str) -> TypeAdapter[Any]:
    """The type of one field with its constraints (``Annotated[type, FieldInfo]``), without the model's
    validators: what decides when a model validator needs more of the record than one fact."""
    info = model.model_fields[field]
    return TypeAdapter(Annotated[info.annotation, info])  # type: ignore[arg-type]  # a runtime-built Annotated


@dataclass(frozen=True)
class FieldRule:
    """One field of a declared model: the predicate its facts are stored under and how a value is checked
    (``listed``: the field's type is a collection, so one value is checked as a list of one)."""

    kind: str
    model: type[BaseModel]
    field: str
    predicate: str
    many: bool
    listed: bool = False

    def check(self, value: str) -> str:
        """``value`` as the model accepts it (canonical spelling), trying it as given, then in lower
        case (a model says "Severe" where the schema allows "severe"), then as JSON for structured fields.

        Raises:
            FactSchemaError: no spelling fits the field.
        """
        model = _assignable(self.model)
        tries: list[Any] = [value]
        if value.casefold() != value:
            tries.append(value.casefold())
        if value[:1] in "{[":
            try:
                tries.append(json.loads(value))
            except ValueError:
                pass
        first: ValidationError | None = None
        for attempt in tries:
            given = [attempt] if self.listed else attempt
            try:
                try:
                    got = getattr(model.__pydantic_validator__.validate_assignment(
                        model.model_construct(), self.field, given), self.field)
                except AttributeError:  # a model validator read a field one fact does not set: the field decides
                    got = _field_type(self.model, self.field).validate_python(given)
            except ValidationError as exc:
                first = first or exc
                continue
            if self.listed:
                got = next(iter(got), None)
            if got is None:
                break
            return _render(got)
        raise FactSchemaError(self.kind, self.predicate, value, _why(first) if first else "no value")


def _rules(model: type[BaseModel]) -> list[tuple[FieldRule, Predicate]]:
    """The fields of ``model`` as rules and declared predicates.

    Raises:
        SchemaError: not a pydantic model, no field, or a field whose name is no predicate.
    """
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise SchemaError(f"a schema is a pydantic BaseModel subclass, not {model!r}")
    kind = kind_of(model)
    config = _extra(model.model_config.get("json_schema_extra"))
    if not model.model_fields:
        raise SchemaError(f"schema {model.__name__}: no field to remember")
    out: list[tuple[FieldRule, Predicate]] = []
    for name, info in model.model_fields.items():
        extra = {**{k: v for k, v in config.items() if k in ("importance", "many")},
                 **_extra(info.json_schema_extra)}
        listed = _is_many(info.annotation)
        many = bool(extra["many"]) if "many" in extra else listed
        predicate = predicate_key(info.alias or name)
        pred = Predicate(name=predicate, many=many, importance=extra.get("importance"),
                         synonyms=tuple(extra.get("synonyms", ())), kind=kind,
                         description=info.description or " ".join((model.__doc__ or "").split()))
        out.append((FieldRule(kind, model, name, predicate, many, listed), pred))
    return out


class SchemaSet:
    """The declared models of a store, by kind and by predicate (built once per tuple of models:
    :func:`schema_set`)."""

    def __init__(self, models: tuple[type[BaseModel], ...]) -> None:
        self.models = models
        self.rules: dict[str, FieldRule] = {}
        self.predicates: list[Predicate] = []
        self.kinds: dict[str, type[BaseModel]] = {}
        for model in models:
            kind = kind_of(model)
            if self.kinds.get(kind, model) is not model:
                raise SchemaError(f"schemas: two models declare the kind {kind!r}")
            self.kinds[kind] = model
            for rule, pred in _rules(model):
                self.rules[rule.predicate] = rule
                self.predicates.append(pred)

    def rule(self, predicate: str) -> FieldRule | None:
        """The field whose facts ``predicate`` (as stored, canonical) holds; ``None``: no model declares it."""
        return self.rules.get(predicate)

    def field(self, kind: str, name: str) -> FieldRule | None:
        """The field ``name`` (attribute name or alias) of the model of ``kind``."""
        return next((r for r in self.rules.values() if r.kind == kind
                     and (r.field == name or r.predicate == predicate_key(name))), None)

    def check(self, predicate: str, value: str) -> str:
        """``value`` in its canonical spelling if ``predicate`` is declared by a model, else as given.

        Raises:
            FactSchemaError: the model refuses ``value``.
        """
        rule = self.rules.get(predicate)
        return value if rule is None else rule.check(value)

    def json_schemas(self) -> dict[str, dict[str, Any]]:
        """Kind -> the model's JSON schema (what the structured-extraction prompt shows the model)."""
        return {kind: model.model_json_schema() for kind, model in self.kinds.items()}


@functools.cache
def schema_set(models: tuple[type[BaseModel], ...]) -> SchemaSet:
    """The :class:`SchemaSet` of ``models`` (cached: a store's config holds one tuple)."""
    return SchemaSet(models)


def schema_predicates(models: Iterable[type[BaseModel]]) -> tuple[Predicate, ...]:
    """The declared predicates the fields of ``models`` map onto (:class:`~..config.Predicate`).

    Raises:
        SchemaError: not pydantic models, a kind or a predicate spelling claimed twice.
    """
    return tuple(schema_set(tuple(models)).predicates)


def check_models(schemas: Any) -> tuple[type[BaseModel], ...]:
    """``schemas`` as a tuple of models.

    Raises:
        SchemaError: not a list of pydantic model classes.
    """
    if isinstance(schemas, (type, str, bytes)) or not hasattr(schemas, "__iter__"):
        raise SchemaError(f"schemas is a list of pydantic models, not {type(schemas).__name__}")
    models = tuple(schemas)
    for model in models:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise SchemaError(f"a schema is a pydantic BaseModel subclass, not {model!r}")
    return models


def with_schemas(config: NovaConfig, schemas: Any) -> NovaConfig:
    """``config`` with the models ``schemas`` added to its declared predicates (a copy; ``config``
    itself when ``schemas`` is ``None``). Predicates declared otherwise (``schema=``, TOML) stay.

    Raises:
        SchemaError: a bad model, or a predicate spelling the models and the other declarations share.
    """
    if schemas is None:
        return config
    facts = config.facts.model_copy(update=declared_with(config.facts, schemas))
    return config.model_copy(update={"facts": facts})


def declared_with(facts: FactConfig, schemas: Any) -> dict[str, Any]:
    """The ``predicates`` and ``schemas`` of ``facts`` once ``schemas`` are declared too (a model
    declared again replaces its own predicates, nothing else).

    Raises:
        SchemaError: a bad model, or a predicate spelling the models and the other declarations share.
    """
    models = tuple(dict.fromkeys((*facts.schemas, *check_models(schemas))))
    found = schema_set(models)
    own = [p for p in facts.predicates if not (p.kind in found.kinds and p.name in found.rules)]
    return {"predicates": check_schema([*own, *found.predicates]), "schemas": models}
