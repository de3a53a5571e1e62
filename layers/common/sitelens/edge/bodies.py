"""Request bodies read as the API reads them: UTF-8 text, a form or JSON, bounded in depth,
and every refusal a 422 on `body`."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from sitelens.core import errors

# a form is an object of values and lists, two levels; deeper JSON is no form, and the
# code below the parser need never walk it
MAX_JSON_DEPTH = 32
TOO_DEEP = f"The body must not be nested more than {MAX_JSON_DEPTH} levels deep."
NOT_UTF8 = "The body must be UTF-8 encoded."
# JSON's `\ud800`-`\udfff` escapes, one alone: half a UTF-16 pair, no character, and no
# answer or record can carry it as UTF-8
_HALF_PAIR = re.compile("[\ud800-\udfff]")
# U+FFFD as UTF-8. A text body reaches a function as a string, not as bytes (API Gateway's
# proxy events; make serve replaces each byte that is not UTF-8 with this character), so a
# raw one in a body stands for bytes that were not UTF-8; JSON's `\ufffd` escape says it.
_REPLACED = "\ufffd".encode()
Form = dict[str, Any]


def body_text(body: bytes) -> str:
    """The body as text, or 422 on `body`: every route's body is read through here, once.
    Bytes that are not UTF-8 are refused, and so is a raw U+FFFD, which is what such bytes
    became when the body was delivered as text (`_REPLACED`)."""
    if _REPLACED in body:
        raise errors.Invalid.field("body", NOT_UTF8)
    try:
        return body.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        raise errors.Invalid.field("body", NOT_UTF8) from None


def parse_form(body: bytes) -> Form:
    try:
        pairs = parse_qsl(body_text(body), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:  # a percent-escape of bytes that are not UTF-8
        raise errors.Invalid.field("body", NOT_UTF8) from None
    fields: Form = {}
    for name, value in pairs:
        if name.endswith("[]"):
            fields.setdefault(name[:-2], []).append(value)
        else:
            fields[name] = value
    return fields


def parse_json(body: bytes) -> Form:
    text = body_text(body).removeprefix("\ufeff")  # a byte order mark, as json.loads allows
    try:
        fields = json.loads(text)
    except RecursionError:  # nested deeper than the interpreter's recursion limit
        raise errors.Invalid.field("body", TOO_DEEP) from None
    except ValueError:
        raise errors.Invalid.field("body", "The body is not valid JSON.") from None
    if not isinstance(fields, dict):
        raise errors.Invalid.field("body", "The body must be a JSON object.")
    depth, half_pair = json_shape(fields)
    if depth > MAX_JSON_DEPTH:
        raise errors.Invalid.field("body", TOO_DEEP)
    if half_pair:
        raise errors.Invalid.field("body", NOT_UTF8)
    return fields


def json_shape(value: Any) -> tuple[int, bool]:
    """How deeply objects and arrays nest in a parsed JSON value (`{}` is 1, a string 0),
    and whether a text of it (a key or a string) holds half a UTF-16 pair: one walk, with a
    stack of our own rather than by recursion."""
    deepest, half_pair = 0, False
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            half_pair = half_pair or _HALF_PAIR.search(item) is not None
        elif isinstance(item, dict):
            deepest = max(deepest, depth)
            pending.extend((key, depth) for key in item)
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in item)
    return deepest, half_pair
