"""The body of a Search Console `searchAnalytics.query` request, read as Google reads it
(`sitelens.local.google` answers 400 INVALID_ARGUMENT with its sentence otherwise)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

DIMENSIONS = ("date", "page", "query", "country", "device")
MAX_ROW_LIMIT = 25_000


@dataclass(frozen=True)
class Asked:
    start: date
    end: date
    dimensions: tuple[str, ...]
    row_limit: int
    start_row: int
    data_state: str

    @classmethod
    def of(cls, body: Any) -> Asked:
        if not isinstance(body, dict):
            raise ValueError("Invalid JSON payload received.")
        try:
            start = date.fromisoformat(str(body.get("startDate")))
            end = date.fromisoformat(str(body.get("endDate")))
        except ValueError:
            raise ValueError("Invalid value at 'start_date' or 'end_date' (YYYY-MM-DD)") from None
        if end < start:
            raise ValueError("startDate must be earlier than or equal to endDate")
        dimensions = tuple(body.get("dimensions") or ())
        unknown = [name for name in dimensions if name not in DIMENSIONS]
        if unknown or len(set(dimensions)) != len(dimensions):
            raise ValueError(f"Invalid value at 'dimensions': {unknown or dimensions}")
        row_limit, start_row = body.get("rowLimit", 1000), body.get("startRow", 0)
        if not isinstance(row_limit, int) or not 1 <= row_limit <= MAX_ROW_LIMIT:
            raise ValueError(f"rowLimit must be between 1 and {MAX_ROW_LIMIT}")
        if not isinstance(start_row, int) or start_row < 0:
            raise ValueError("startRow must be a non-negative integer")
        data_state = str(body.get("dataState", "final")).lower()
        if data_state not in ("final", "all", "hourly_all"):
            raise ValueError(f"Invalid value at 'data_state': {data_state}")
        return cls(start, end, dimensions, row_limit, start_row, data_state)
