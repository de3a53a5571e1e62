"""What a segments request may carry: a name and the query API's filters."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from sitelens.analytics.segments import rules
from sitelens.records.inputs import Input, checked_text, saved_name

Name = Annotated[str, checked_text(saved_name)]
Filters = Annotated[list[Any], BeforeValidator(rules.check_filters)]


class SegmentCreate(Input):
    name: Name
    filters: Filters


class SegmentUpdate(Input):
    """The segment's new name, or filters, or both (`records.update` refuses neither)."""

    name: Name | None = None
    filters: Filters | None = None
