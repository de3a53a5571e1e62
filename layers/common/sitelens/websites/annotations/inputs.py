"""What an annotations request may carry: a date or a moment, a text and a link."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input, label
from sitelens.websites.annotations import rules


def _checked(check: Any) -> BeforeValidator:
    def run(value: Any, info: ValidationInfo) -> str:
        if not isinstance(value, str):
            raise FieldError(f"The {label(info.field_name or '')} field must be a string.")
        return str(check(value))

    return BeforeValidator(run)


AnnotationDate = Annotated[str, _checked(rules.check_date)]
AnnotationText = Annotated[str, _checked(rules.check_text)]
AnnotationLink = Annotated[str, _checked(rules.check_link)]


class AnnotationCreate(Input):
    date: AnnotationDate
    text: AnnotationText
    link: AnnotationLink | None = None


class AnnotationUpdate(Input):
    """The fields sent change; None means "not sent" (an empty link removes it)."""

    date: AnnotationDate | None = None
    text: AnnotationText | None = None
    link: AnnotationLink | None = None
