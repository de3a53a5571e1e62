"""What a webhooks request may carry: an endpoint's URL, events and reach; a rotation's
overlap."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationInfo

from sitelens.accounts.inputs import (
    DEFAULT_OVERLAP_SECONDS,
    Projects,
    WebsiteIds,
    overlap_seconds,
)
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Flag, Input, text
from sitelens.webhooks import registry

MAX_URL_LENGTH = 2048
# What an endpoint may subscribe to (`webhook.test` is sent on request only).
EVENTS = registry.SUBSCRIBABLE


def _events(value: Any, info: ValidationInfo) -> list[str]:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    names = ", ".join(EVENTS)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise FieldError(f"The events field must list one or more of: {names}.")
    unknown = [v for v in value if v not in EVENTS]
    if unknown:
        raise FieldError(f"The events field must list one or more of: {names}.")
    return sorted(set(value))


def _url(value: Any, info: ValidationInfo) -> str:
    sentence = "The url must be a valid http or https URL."
    if not isinstance(value, str) or len(value) > MAX_URL_LENGTH:
        raise FieldError(f"{sentence} (at most {MAX_URL_LENGTH} characters)")
    url = value.strip()
    if not url.lower().startswith(("http://", "https://")):
        raise FieldError(sentence)
    return url


Url = Annotated[str, BeforeValidator(_url)]
Events = Annotated[list[str], BeforeValidator(_events)]
Description = Annotated[str, text(255)]


class EndpointCreate(Input):
    """A new endpoint: where to, which events, and optionally which websites and projects
    (absent: all of the account's)."""

    url: Url
    events: Events
    description: Description = ""
    websites: WebsiteIds | None = None
    projects: Projects | None = None


class EndpointUpdate(Input):
    """What an update may change; None: unchanged. `enabled` = 1 turns a disabled endpoint
    on again (0 pauses it)."""

    url: Url | None = None
    events: Events | None = None
    description: Description | None = None
    websites: WebsiteIds | None = None
    projects: Projects | None = None
    enabled: Flag | None = None


class SecretRotate(Input):
    """How many seconds the old signing secret keeps signing beside the new one."""

    overlap: Annotated[int, BeforeValidator(overlap_seconds)] = DEFAULT_OVERLAP_SECONDS
