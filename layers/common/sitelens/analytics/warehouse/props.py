"""`event:props:<key>`: a custom property as a dimension and a filter, in SQL.

A row's properties are JSON text of a flat map (`core.properties`); a key's value is
read with DuckDB's JSON_EXTRACT_STRING, which SQLGlot renders as Athena's
JSON_EXTRACT_SCALAR. A row without the property has the value "" (Plausible's `(none)`).
Keys are checked against the ingest's pattern before they reach SQL, so a key never holds
a quote.
"""

from __future__ import annotations

from typing import Final

from sitelens.core.properties import KEY_PATTERN

PREFIX: Final = "event:props:"


def is_props(dimension: object) -> bool:
    """Whether a dimension names a custom property by a key the ingest accepts."""
    return (
        isinstance(dimension, str)
        and dimension.startswith(PREFIX)
        and KEY_PATTERN.match(dimension[len(PREFIX) :]) is not None
    )


def column(dimension: str, row: str = "e") -> str:
    """The property's value of a row (alias `row`; DuckDB's dialect), NULL when it has
    none."""
    key = dimension[len(PREFIX) :]
    if not KEY_PATTERN.match(key):  # `is_props` was asked first: never reached
        raise ValueError(f"not a property key: {key!r}")
    return f"JSON_EXTRACT_STRING({row}.props, '$.\"{key}\"')"
