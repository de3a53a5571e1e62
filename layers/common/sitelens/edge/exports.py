"""CSV exports of lists (`?format=csv`): RFC 4180 text, UTF-8 with a header row, every
cell that a spreadsheet would read as a formula neutralised (OWASP's CSV injection rule)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from sitelens.core import errors
from sitelens.edge.http import Response

CSV_TYPE = "text/csv; charset=utf-8"
# Lambda answers at most 6 MB through API Gateway: an export stops short of it.
MAX_EXPORT_BYTES = 5 * 1024 * 1024
TOO_LARGE = "The export is larger than 5 MiB; narrow it with filters, a search or a shorter period."
# Spreadsheets run a cell starting with these as a formula (or strip them first).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(value: Any) -> Any:
    """A cell as written: text that a spreadsheet would run as a formula gets a leading `'`
    (shown, never run); numbers stay as they are, booleans are written as JSON has them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def csv_file(
    columns: Sequence[str],
    rows: Iterable[dict[str, Any]],
    filename: str,
    headers: Sequence[str] | None = None,
) -> Response:
    """Every row as CSV, to be saved as `filename`, under `headers` (the columns' names by
    default); 422 when the file would be too large."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(headers or columns)
    for row in rows:
        writer.writerow([neutralised(row.get(column)) for column in columns])
        if text.tell() > MAX_EXPORT_BYTES:  # characters: at most as many as bytes
            raise errors.Invalid.field("format", TOO_LARGE)
    body = text.getvalue()
    if len(body.encode()) > MAX_EXPORT_BYTES:
        raise errors.Invalid.field("format", TOO_LARGE)
    disposition = f'attachment; filename="{filename}"'
    return Response(200, body, {"Content-Disposition": disposition}, CSV_TYPE)


PDF_TYPE = "application/pdf"
# A binary answer goes through API Gateway in base64 (4 bytes for 3) within Lambda's 6 MB.
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
DOCUMENT_TOO_LARGE = "The document is larger than 4 MiB, more than the API can send."


def pdf_file(body: bytes, filename: str) -> Response:
    """A PDF to be saved as `filename` (sent in base64, which API Gateway decodes: the SEO
    API's binary media types); 422 when it would not fit in an answer."""
    if len(body) > MAX_DOCUMENT_BYTES:
        raise errors.Invalid.field("format", DOCUMENT_TOO_LARGE)
    disposition = f'attachment; filename="{filename}"'
    return Response(200, body, {"Content-Disposition": disposition}, PDF_TYPE)
