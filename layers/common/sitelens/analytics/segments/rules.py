"""The rules of a saved segment's fields and the bound of a website's segments.

A segment's filters are checked by the query API's own code (`warehouse.filters.parse`),
so a segment that saves is a segment that queries; they may not name another segment
(segments do not nest), and their JSON is bounded so that the website's item, which every
query reads, stays small: `MAX_SEGMENTS` x `MAX_FILTERS_BYTES` is at most 80 KB.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from sitelens.analytics.warehouse import filters
from sitelens.core import errors
from sitelens.core.errors import FieldError

MAX_SEGMENTS: Final = 20
MAX_FILTERS_BYTES: Final = 4_000  # the filters' compact JSON, in UTF-8
TOO_MANY: Final = f"A website has at most {MAX_SEGMENTS} segments."
NAME_TAKEN: Final = "The name has already been taken by another segment of the website."
# a share page's or a recipient's `segment` that is not one of the website's
NOT_A_SEGMENT: Final = "The segment field must be a saved segment's id."
NOTHING: Final = "Give the segment's new name or filters."
NOT_SAVED: Final = (
    "Segment {id} is not a saved segment of the query's websites: see"
    " /api/v1/websites/{{id}}/segments."
)


def encoded(value: list[Any]) -> str:
    """Filters as stored: compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def check_filters(value: Any) -> list[Any]:
    """The query API's filters (a JSON list, or its text from a form), at least one, none
    naming a segment, their JSON at most `MAX_FILTERS_BYTES`."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise FieldError("The filters field must be a JSON list of filters.") from None
    if not isinstance(value, list) or not value:
        raise FieldError("The filters field must be a non-empty list of the query API's filters.")
    try:
        filters.parse(value, segments=False)
    except errors.Invalid as refused:
        sentences = cast(dict[str, list[str]], refused.message)  # filters.parse's: one field
        raise FieldError(sentences["filters"][0]) from None
    if len(encoded(value).encode()) > MAX_FILTERS_BYTES:
        raise FieldError(f"A segment's filters must not exceed {MAX_FILTERS_BYTES} bytes of JSON.")
    return value
