"""The base of input models: field types and the contract's 422 sentences.

Each domain area declares its own input models (`websites.inputs`, `reports.inputs`,
`analytics.inputs`) on these. Form fields arrive as strings, JSON fields as their own
types; both are accepted. Every sentence names the field and, for a choice, the allowed
values. Only input models import pydantic, so handlers that parse no input never load it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo

from sitelens.core import clock, errors, hosts, numbers
from sitelens.core.errors import FieldError
from sitelens.tokens import signing


def label(field: str) -> str:
    return field.replace("_", " ")


def choice(*allowed: Any) -> BeforeValidator:
    """A value from `allowed`; form strings are compared to the allowed values' text."""
    texts = {str(value): value for value in allowed}
    names = ", ".join(texts)

    def pick(value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool):  # JSON true is not the 1 the contract asks for
            raise FieldError(f"The {label(info.field_name or '')} field must be one of: {names}.")
        if isinstance(value, float):  # JSON's 25.0 is 25
            value = numbers.integer(value)
        if isinstance(value, str | int) and str(value).strip() in texts:
            return texts[str(value).strip()]
        raise FieldError(f"The {label(info.field_name or '')} field must be one of: {names}.")

    return BeforeValidator(pick)


def text(max_length: int, min_length: int = 0) -> BeforeValidator:
    def check(value: Any, info: ValidationInfo) -> str:
        name = label(info.field_name or "")
        if not isinstance(value, str):
            raise FieldError(f"The {name} field must be a string.")
        if len(value) > max_length:
            raise FieldError(f"The {name} field must not be greater than {max_length} characters.")
        if len(value) < min_length:
            raise FieldError(f"The {name} field must be at least {min_length} characters.")
        return value

    return BeforeValidator(check)


def expiry(days: int, within: str) -> BeforeValidator:
    """A moment in the future and at most `days` ahead (ISO 8601, UTC when no offset is
    given: `clock.moment`), as Unix seconds; `within` words the bound for the sentence."""

    def check(value: Any, info: ValidationInfo) -> int:
        moment = clock.moment(value) if isinstance(value, str) else None
        now = time.time()
        if moment is None or not now < moment.timestamp() <= now + days * 86_400:
            name = label(info.field_name or "")
            raise FieldError(
                f"The {name} field must be a date-time in the future, within {within}."
            )
        return int(moment.timestamp())

    return BeforeValidator(check)


MAX_URL_LENGTH = 2048


def web_url(value: Any) -> str:
    """A URL given to fetch (a report's, an audit's, a proof's page): http or https with a
    host, at most 2,048 characters, trimmed."""
    if not isinstance(value, str):
        raise FieldError("The url field must be a string.")
    url = value.strip()
    if len(url) > MAX_URL_LENGTH:
        raise FieldError(f"The url field must not be greater than {MAX_URL_LENGTH} characters.")
    parts = hosts.split_url(url)
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FieldError("The url must be a valid http or https URL.")
    return url


WebUrl = Annotated[str, BeforeValidator(web_url)]

MAX_CURSOR_LENGTH = 4096


def _cursor(value: Any, info: ValidationInfo) -> str:
    """A cursor of the shape we sign, refused here even where it does not apply (an
    export's every row), as the documents' pattern says."""
    if not isinstance(value, str):
        raise FieldError("The cursor field must be a string.")
    if len(value) > MAX_CURSOR_LENGTH:
        raise FieldError(
            f"The cursor field must not be greater than {MAX_CURSOR_LENGTH} characters."
        )
    if not signing.cursor_shaped(value):
        raise FieldError("The cursor is invalid.")
    return value


Cursor = Annotated[str, BeforeValidator(_cursor)]


MAX_NAME_LENGTH = 120  # a saved record's name: a funnel's, a segment's


def saved_name(value: str) -> str:
    """A saved record's name (a funnel's, a segment's): 1 to `MAX_NAME_LENGTH`
    characters, not white space only."""
    if not 0 < len(value) <= MAX_NAME_LENGTH:
        raise FieldError(f"The name field must have 1 to {MAX_NAME_LENGTH} characters.")
    if not value.strip():
        raise FieldError("The name field must not be only white space.")
    return value


def checked_text(check: Callable[[str], Any]) -> BeforeValidator:
    """A string field, then `check` (a rule that raises FieldError or returns the value)."""

    def run(value: Any, info: ValidationInfo) -> str:
        if not isinstance(value, str):
            raise FieldError(f"The {label(info.field_name or '')} field must be a string.")
        return str(check(value))

    return BeforeValidator(run)


def lines(check_line: Callable[[str], str | None], max_lines: int = 1000) -> BeforeValidator:
    """A list given as one entry per line (or as repeated `name[]` fields / a JSON array),
    normalized to trimmed, non-empty, `\\n`-joined lines. `check_line` returns an error
    sentence for a bad line, or None."""

    def check(value: Any, info: ValidationInfo) -> str:
        name = label(info.field_name or "")
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise FieldError(f"The {name} field must be a list of strings.")
            value = "\n".join(value)
        if not isinstance(value, str):
            raise FieldError(f"The {name} field must be a string.")
        entries = [line.strip() for line in value.replace("\r", "\n").split("\n")]
        entries = [line for line in entries if line]
        if len(entries) > max_lines:
            raise FieldError(f"The {name} field must not have more than {max_lines} lines.")
        for line in entries:
            problem = check_line(line)
            if problem:
                raise FieldError(problem)
        return "\n".join(entries)

    return BeforeValidator(check)


Flag = Annotated[int, choice(0, 1)]
Privacy = Annotated[int, choice(0, 1, 2)]
Sort = Annotated[str, choice("desc", "asc")]
PerPage = Annotated[int, choice(10, 25, 50, 100)]
# A record's password guards its share view: 8 characters at least, so that guessing it
# online, a few tries per address (`sharing`), is hopeless.
MIN_PASSWORD_LENGTH = 8
Password = Annotated[str, text(128, min_length=MIN_PASSWORD_LENGTH)]
SearchText = Annotated[str, text(255)]


class Input(BaseModel):
    """Base of every input model: unknown fields are ignored, never stored."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """The model of `data`, or 422 with every field's sentences. A JSON `null` is no
        value of any field: leave a field out to leave it unchanged."""
        nulls = {
            name: [f"The {label(name)} field must not be null."]
            for name, value in data.items()
            if value is None and name in cls.model_fields
        }
        if nulls:
            raise errors.Invalid(nulls)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise errors.Invalid(_messages(exc)) from None


def _messages(exc: ValidationError) -> dict[str, list[str]]:
    messages: dict[str, list[str]] = {}
    for problem in exc.errors():
        field = str(problem["loc"][0]) if problem["loc"] else "body"
        cause = (problem.get("ctx") or {}).get("error")
        if problem["type"] == "missing":
            sentence = f"The {label(field)} field is required."
        elif isinstance(cause, FieldError):
            sentence = str(cause)
        else:
            sentence = f"The {label(field)} field is invalid."
        messages.setdefault(field, []).append(sentence)
    return messages


class PrivacyFields(Input):
    """`privacy` and `password`, as every record type takes them; None means "not sent"."""

    privacy: Privacy | None = None
    password: Password | None = None


class ListQuery(Input):
    """What every list accepts: search, order, page size and cursor."""

    search: SearchText | None = None
    sort: Sort = "desc"
    per_page: PerPage = 10
    cursor: Cursor | None = None

    # Filters that select an index, in the order they are preferred.
    filter_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """An empty parameter (`?favorite=&sort_by=`) is no parameter, as in query builders."""
        return super().parse({name: value for name, value in data.items() if value != ""})

    def filters(self) -> dict[str, str]:
        """The filters in use, as the values the indexes are keyed on."""
        values = {name: getattr(self, name) for name in self.filter_fields}
        return {name: str(value) for name, value in values.items() if value is not None}

    def params(self) -> dict[str, Any]:
        """Every list parameter the caller set or defaulted, except the cursor (and an
        export's format, which pages never carry)."""
        return self.model_dump(exclude={"cursor", "format"}, exclude_none=True)


class PageQuery(Input):
    """What a short list read whole and shown by pages takes (an account's keys, an
    endpoint's latest deliveries): order by id, page size and cursor."""

    sort: Sort = "desc"
    per_page: PerPage = 10
    cursor: Cursor | None = None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Self:
        """An empty parameter is no parameter, as for `ListQuery`."""
        return super().parse({name: value for name, value in data.items() if value != ""})

    def params(self) -> dict[str, Any]:
        """Every parameter but the cursor."""
        return self.model_dump(exclude={"cursor"})


class Exportable(Input):
    """A list that can also be had whole, as CSV (`?format=csv`)."""

    format: Annotated[str, choice("json", "csv")] = "json"
