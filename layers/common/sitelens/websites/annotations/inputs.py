"""What an annotations request may carry: a date or a moment, a text and a link."""

from __future__ import annotations

from typing import Annotated

from sitelens.records.inputs import Input, checked_text
from sitelens.websites.annotations import rules

AnnotationDate = Annotated[str, checked_text(rules.check_date)]
AnnotationText = Annotated[str, checked_text(rules.check_text)]
AnnotationLink = Annotated[str, checked_text(rules.check_link)]


class AnnotationCreate(Input):
    date: AnnotationDate
    text: AnnotationText
    link: AnnotationLink | None = None


class AnnotationUpdate(Input):
    """The fields sent change; None means "not sent" (an empty link removes it)."""

    date: AnnotationDate | None = None
    text: AnnotationText | None = None
    link: AnnotationLink | None = None
