"""What can go wrong in a request, each mapped to its HTTP status once."""

from __future__ import annotations

MAX_ECHOED = 100  # characters of a caller's input a message repeats: enough to find the line


def echoed(text: str) -> str:
    """A caller's input as an error sentence repeats it: cut to `MAX_ECHOED` characters, the
    last of them "…", so that a 64 KiB line is not sent back whole."""
    return text if len(text) <= MAX_ECHOED else text[: MAX_ECHOED - 1] + "…"


class FieldError(ValueError):
    """Why one field's value is refused: a sentence of the 422 body."""


class ApiError(Exception):
    """An error a caller sees: a status and the contract's message."""

    status = 500
    message: object = "Server error."
    headers: dict[str, str] = {}  # noqa: RUF012 - read-only class default

    def body(self) -> dict[str, object]:
        return {"message": self.message, "status": self.status}


class BadRequest(ApiError):
    """A request that is not HTTP as the server reads it (the local server only)."""

    status = 400
    message = "Bad request."


class Unauthenticated(ApiError):
    status = 401
    message = "Unauthenticated."
    headers = {"WWW-Authenticate": "Bearer"}  # noqa: RUF012


class Forbidden(ApiError):
    status = 403
    message = "Forbidden."


class NotFound(ApiError):
    status = 404
    message = "Resource not found."


class MethodNotAllowed(ApiError):
    status = 405
    message = "Method not allowed."

    def __init__(self, allowed: list[str]) -> None:
        super().__init__()
        self.headers = {"Allow": ", ".join(allowed)}


class Conflict(ApiError):
    """409: other requests kept changing the record; nothing was written, try again."""

    status = 409
    message = "The resource was changed by another request at the same time. Try again."


class EndpointDisabled(Conflict):
    """409: a delivery is not sent again to an endpoint that takes none (it would fail at once)."""

    message = "The endpoint is disabled; enable it, then redeliver."


class DeliveryInProgress(Conflict):
    """409: a webhook delivery still pending or retrying is not sent again beside itself."""

    message = (
        "The delivery is pending or retrying; it can be redelivered once it has succeeded "
        "or failed."
    )


class PayloadTooLarge(ApiError):
    status = 413
    message = "Payload too large."


class UriTooLong(ApiError):
    status = 414
    message = "URI too long."


class UnsupportedMediaType(ApiError):
    status = 415
    message = "Unsupported media type."


class TooManyRequests(ApiError):
    """429: wait `retry_after` seconds (the account's bucket is empty, say; the gateway's
    own throttling answers the same body); `headers` go with it (the X-RateLimit ones)."""

    status = 429
    message = "Too Many Attempts."

    def __init__(self, retry_after: int, headers: dict[str, str] | None = None) -> None:
        super().__init__()
        self.headers = {**(headers or {}), "Retry-After": str(retry_after)}


class Invalid(ApiError):
    """422: `errors` maps each field to the sentences that explain what is wrong with it."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.message = errors

    @classmethod
    def field(cls, name: str, sentence: str) -> Invalid:
        return cls({name: [sentence]})


class HeaderFieldsTooLarge(ApiError):
    status = 431
    message = "Request header fields too large."
