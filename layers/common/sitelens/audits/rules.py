"""The rules of an audit's settings beyond its scope: its name, crawl settings (user agent,
request headers, basic auth, cookie, list mode, speed), regression settings and muted
issues. Each takes what a form or a JSON body carries and gives the value stored, or
raises FieldError with the contract's sentence. A secret's sentence never repeats it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from sitelens.audits import codes
from sitelens.audits.history import DEFAULT_REGRESSION, DEFAULT_SCORE_DROP
from sitelens.core.config import settings
from sitelens.core.errors import FieldError, echoed

MAX_NAME_LENGTH: Final = 120  # as a funnel's or a goal's name
DEFAULT_USER_AGENT: Final = "sitelens"  # of `audits.fetching.USER_AGENTS`
MAX_HEADERS: Final = 20
MAX_HEADER_NAME_LENGTH: Final = 100
MAX_HEADER_VALUE_BYTES: Final = 1024
# Set by the fetcher itself, framing or routing the request, or a field of their own
# (`basic_auth`, `cookie`, `user_agent`): a header cannot replace them.
RESERVED_HEADERS: Final = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",  # the fetcher decodes what it asked for
        "authorization",
        "cookie",
        "user-agent",
    }
)
MAX_BASIC_AUTH_LENGTH: Final = 512
MAX_COOKIE_BYTES: Final = 4096
MAX_LIST_URLS: Final = 10_000
MIN_RATE: Final = 0.1  # pages a second: one every ten seconds
GRADES: Final = ("muted", "high", "medium", "low")  # `muted`, or the severity it counts at
MAX_MUTED: Final = 100
REGRESSION_KEYS: Final = tuple(DEFAULT_REGRESSION)

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110's field name (fullmatch)
_VISIBLE = re.compile(r"[\t\x20-\x7e]*")  # a field value, no CR, LF or control (fullmatch)


def check_name(value: str) -> str:
    """An audit's name (empty: none)."""
    if len(value) > MAX_NAME_LENGTH:
        raise FieldError(f"The name field must have at most {MAX_NAME_LENGTH} characters.")
    if value and not value.strip():
        raise FieldError("The name field must not be only white space.")
    return value


def check_user_agent(value: Any) -> str:
    """The name of one of the crawler's user agents (`audits.fetching.USER_AGENTS`)."""
    # Imported here: the fetcher brings urllib3, which only a chosen agent needs checked.
    from sitelens.audits.fetching import USER_AGENTS

    if isinstance(value, str) and value.strip() in USER_AGENTS:
        return value.strip()
    raise FieldError(f"The user agent field must be one of: {', '.join(USER_AGENTS)}.")


def check_headers(value: Any) -> dict[str, str]:
    """Request headers: a JSON object of name -> value, or (a form) `Name: value` lines or
    that object as JSON text; empty clears them."""
    if isinstance(value, str) and value.strip().startswith("{"):
        value = _json_object(value, "headers")
    elif isinstance(value, str | list):
        value = _header_lines(value)
    if not isinstance(value, dict):
        raise FieldError("The headers field must be an object of header names and values.")
    if len(value) > MAX_HEADERS:
        raise FieldError(f"The headers field must not have more than {MAX_HEADERS} headers.")
    headers: dict[str, str] = {}
    seen: set[str] = set()  # names compare without case
    for name, text in value.items():
        if not (0 < len(name) <= MAX_HEADER_NAME_LENGTH and _TOKEN.fullmatch(name)):
            raise FieldError(f"{echoed(name)} is not a valid header name.")
        if name.lower() in RESERVED_HEADERS:
            raise FieldError(
                f"The {name} header cannot be set: use basic_auth, cookie or user_agent, "
                "or leave it to the crawler."
            )
        if name.lower() in seen:
            raise FieldError(f"The {name} header is given twice.")
        seen.add(name.lower())
        if not isinstance(text, str) or not _VISIBLE.fullmatch(text):
            raise FieldError(
                f"The value of the {name} header must be text without line breaks or "
                "control characters."
            )
        if len(text.encode()) > MAX_HEADER_VALUE_BYTES:
            raise FieldError(
                f"The value of the {name} header must not be longer than "
                f"{MAX_HEADER_VALUE_BYTES} bytes."
            )
        headers[name] = text.strip()
    return headers


def _header_lines(value: str | list[Any]) -> dict[str, Any]:
    lines = value if isinstance(value, list) else value.replace("\r", "\n").split("\n")
    found: dict[str, Any] = {}
    for line in lines:
        if not isinstance(line, str):
            raise FieldError("The headers field must be a list of Name: value lines.")
        if not line.strip():
            continue
        name, colon, text = line.partition(":")
        if not colon:
            raise FieldError("Each line of the headers field must be Name: value.")
        if name.strip() in found:
            raise FieldError(f"The {echoed(name.strip())} header is given twice.")
        found[name.strip()] = text.strip()
    return found


def check_basic_auth(value: str) -> str:
    """`user:password` for HTTP basic authentication (empty: none)."""
    if not value:
        return ""
    user, colon, _ = value.partition(":")
    if (
        not colon
        or not user
        or len(value) > MAX_BASIC_AUTH_LENGTH
        or not _VISIBLE.fullmatch(value)
        or "\t" in value
    ):
        raise FieldError(
            "The basic auth field must be user:password (a user name without a colon, at "
            f"most {MAX_BASIC_AUTH_LENGTH} characters in all, no control characters)."
        )
    return value


def check_cookie(value: str) -> str:
    """A `Cookie` header's value sent with every fetch (empty: none)."""
    if len(value.encode()) > MAX_COOKIE_BYTES or not _VISIBLE.fullmatch(value):
        raise FieldError(
            f"The cookie field must be at most {MAX_COOKIE_BYTES} bytes of text without line "
            "breaks or control characters."
        )
    return value.strip()


def list_url_problem(line: str) -> str | None:
    """Why a line of `list_urls` is refused (an absolute http or https URL), or None."""
    from sitelens.audits import urls

    if not line.lower().startswith(("http://", "https://")) or urls.normalise(line) is None:
        return (
            "Each line of the list urls field must be an absolute http or https URL: "
            f"{echoed(line)}"
        )
    return None


def check_max_rate(value: Any) -> float:
    """Pages a second, from `MIN_RATE` to the service's `audit_rate`; 0: the service's."""
    high = settings().audit_rate
    rate = _number(value)
    if rate is None or not (rate == 0 or MIN_RATE <= rate <= high):
        raise FieldError(
            f"The max rate field must be a number of pages a second from {MIN_RATE:g} to "
            f"{high}, or 0 for the service's rate."
        )
    return rate


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def check_regression(value: Any) -> dict[str, Any]:
    """Regression settings with their defaults filled in: `score_drop` (1 to 100 points,
    default 10), `high_on_added_pages` (default false) and `ignore` (issue codes); a JSON
    object, or (a form) its JSON text. Empty: the defaults."""
    given = _json_object(value, "regression") if isinstance(value, str) else value
    if not isinstance(given, dict):
        raise FieldError("The regression field must be an object.")
    unknown = sorted(set(given) - set(REGRESSION_KEYS))
    if unknown:
        raise FieldError(
            f"The regression field takes {', '.join(REGRESSION_KEYS)}, not {echoed(unknown[0])}."
        )
    drop = given.get("score_drop", DEFAULT_SCORE_DROP)
    if isinstance(drop, bool) or not isinstance(drop, int) or not 1 <= drop <= 100:
        raise FieldError("The regression score_drop must be a whole number from 1 to 100.")
    added = given.get("high_on_added_pages", False)
    if not isinstance(added, bool):
        raise FieldError("The regression high_on_added_pages must be true or false.")
    ignore = given.get("ignore", [])
    if not isinstance(ignore, list) or len(ignore) > MAX_MUTED:
        raise FieldError(
            f"The regression ignore must be a list of at most {MAX_MUTED} issue codes."
        )
    ignored = sorted({codes.check(code, "regression ignore") for code in ignore})
    return {"score_drop": drop, "high_on_added_pages": added, "ignore": ignored}


def check_muted(value: Any) -> dict[str, str]:
    """Issue code -> `muted`, or the severity it counts at instead of its own; a JSON
    object, or (a form) its JSON text. Empty: nothing muted or graded again."""
    given = _json_object(value, "muted") if isinstance(value, str) else value
    if not isinstance(given, dict) or len(given) > MAX_MUTED:
        raise FieldError(
            f"The muted field must be an object of at most {MAX_MUTED} issue codes, each "
            f"{', '.join(GRADES)}."
        )
    muted: dict[str, str] = {}
    for code, grade in given.items():
        if grade not in GRADES:
            raise FieldError(
                f"The muted grade of {echoed(str(code))} must be one of: {', '.join(GRADES)}."
            )
        muted[codes.check(code, "muted")] = grade
    return dict(sorted(muted.items()))


def _json_object(value: Any, field: str) -> Any:
    """A form's JSON text of an object (empty: an empty object)."""
    if not value.strip():
        return {}
    try:
        found = json.loads(value)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise FieldError(f"The {field} field must be a JSON object.")
    return found
