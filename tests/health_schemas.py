"""The health coach's declared schemas (issue #40) as pydantic models, shared by the unit and the
integration tests of declared schemas: allergies (a list field, an Enum, class importance 5, a
synonym), medications, and goals (a constrained float, a Literal, a field validator)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["Allergy", "Goal", "Medication", "Severity"]


class Severity(str, Enum):
    mild = "mild"
    moderate = "moderate"
    severe = "severe"


class Allergy(BaseModel):
    """What the user must never be given."""

    model_config = ConfigDict(json_schema_extra={"importance": 5})
    allergy: list[str] = Field(default_factory=list, json_schema_extra={"synonyms": ["allergic_to"]})
    allergy_severity: Severity | None = None


class Medication(BaseModel):
    """What the user takes, each one."""

    model_config = ConfigDict(json_schema_extra={"importance": 5})
    medication: list[str] = Field(default_factory=list, json_schema_extra={"synonyms": ["takes_medication"]})


class Goal(BaseModel):
    """What the user works towards."""

    goal: list[str] = Field(default_factory=list, json_schema_extra={"importance": 4})
    target_weight_kg: Annotated[float, Field(gt=30, lt=300)] | None = None
    activity_level: Literal["low", "medium", "high"] | None = None

    @field_validator("goal")
    @classmethod
    def _safe(cls, goals: list[str]) -> list[str]:
        if any("pills" in g for g in goals):
            raise ValueError("no goals about diet pills")
        return goals
