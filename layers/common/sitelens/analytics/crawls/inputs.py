"""What an upload of access-log lines may say in its query string: the lines' `format`
(`auto` by default) and, for CloudFront's real-time logs, the `fields` its configuration
chose, comma-separated, in CloudFront's order (default: every field, `REALTIME_FIELDS`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import field_validator

from sitelens.analytics.crawls.accesslogs import REALTIME_FIELDS
from sitelens.core import errors
from sitelens.core.errors import FieldError
from sitelens.records.inputs import Input


class LogUpload(Input):
    format: Literal["auto", "combined", "common", "cloudfront", "cloudfront-realtime", "jsonl"] = (
        "auto"
    )
    fields: str = ""

    @field_validator("fields")
    @classmethod
    def _known(cls, value: str) -> str:
        names = [name.strip() for name in value.split(",") if name.strip()]
        unknown = [name for name in names if name not in REALTIME_FIELDS]
        if unknown:
            raise FieldError(f"Unknown real-time log fields: {', '.join(unknown)}.")
        if names and not {"timestamp", "c-ip", "sc-status", "cs-uri-stem"} <= set(names):
            raise FieldError("The fields must include timestamp, c-ip, sc-status, cs-uri-stem.")
        return ",".join(names)

    def reading(self) -> tuple[str, Sequence[str]]:
        """The format and the real-time fields, as `uploads.upload` takes them."""
        return self.format, tuple(self.fields.split(",")) if self.fields else REALTIME_FIELDS


def check_media_type(content_type: str | None) -> None:
    """415 for a multipart form: the log is the body itself (any other type is read as
    lines, `curl --data-binary`'s form type included; gzip by its magic bytes)."""
    if (content_type or "").split(";")[0].strip().lower().startswith("multipart/"):
        raise errors.UnsupportedMediaType()
