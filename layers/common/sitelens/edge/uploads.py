"""A request that carries a file: `multipart/form-data` with a `file` part (and other fields
as text parts), bounded by what API Gateway hands a function; or, without a file, the
route's ordinary form or JSON body (`Request.form`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sitelens.core import errors
from sitelens.edge.bodies import Form, body_text
from sitelens.edge.http import Request

MULTIPART_TYPE: Final = "multipart/form-data"
# A Lambda proxy event is at most 6 MB, and API Gateway sends a binary body base64-encoded
# (4/3 larger): about 4.5 MB of body reach the function; larger files come from a bucket.
MAX_UPLOAD_BYTES: Final = 4 * 1024 * 1024
FILE_FIELD: Final = "file"


@dataclass(frozen=True)
class Upload:
    """A request's fields, and its file's bytes and name when it sent one."""

    fields: Form
    file: bytes | None = None
    filename: str = ""


def of_request(request: Request) -> Upload:
    """The request's file and fields: 413 over MAX_UPLOAD_BYTES, 422 on `file` for a
    multipart body without one, else the form or JSON body as `Request.form` reads it."""
    sent = request.headers.get("content-type") or ""
    if sent.split(";")[0].strip().lower() != MULTIPART_TYPE:
        return Upload(request.form())
    if len(request.body) > MAX_UPLOAD_BYTES:
        raise errors.PayloadTooLarge()
    from email import policy
    from email.parser import BytesParser

    head = f"Content-Type: {sent}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", "replace")
    message = BytesParser(policy=policy.HTTP).parsebytes(head + request.body)
    if not message.is_multipart():
        raise errors.Invalid.field("body", "The multipart body has no parts (or no boundary).")
    fields: Form = {}
    found: tuple[bytes, str] | None = None
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if not isinstance(name, str) or not isinstance(payload, bytes):
            continue
        if name == FILE_FIELD:
            found = (payload, str(part.get_filename() or ""))
        else:
            fields[name] = body_text(payload)
    if found is None or not found[0]:
        raise errors.Invalid.field(FILE_FIELD, "The multipart body must have a file part, `file`.")
    return Upload(fields, found[0], found[1])
