"""What a check is and what it returns: `Check` (its key, importance and category, and the
function that runs it) and `Outcome` (`passed`, `value`, `errors`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

from sitelens.seo.checks.context import Context

Importance: TypeAlias = Literal["high", "medium", "low"]
Category: TypeAlias = Literal["seo", "performance", "security", "miscellaneous"]
JSON: TypeAlias = str | int | float | bool | Sequence["JSON"] | Mapping[str, "JSON"] | None
Errors: TypeAlias = dict[str, str]


class Outcome(NamedTuple):
    """What one check found: whether it passed, what it saw and why it failed."""

    passed: bool
    value: JSON
    errors: Errors | None


class FieldOutcome(Outcome):
    """An outcome judged by real visits' measurements (a report's field data), not by the
    fetched page: its result says `"source": "field"`."""

    __slots__ = ()


def verdict(value: JSON, errors: Errors) -> Outcome:
    """An outcome that passes exactly when there are no errors."""
    return Outcome(not errors, value, errors or None)


@dataclass(frozen=True)
class Check:
    """A registered check."""

    key: str
    importance: Importance
    category: Category
    run: Callable[[Context], Outcome]
