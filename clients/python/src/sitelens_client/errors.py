"""The API's errors as exceptions, one class per status, each carrying the contract's body:
`{"message": ..., "status": ...}` (a 422's message maps each field to what is wrong)."""

from __future__ import annotations

from typing import Any


class SitelensError(Exception):
    """Anything the client could not do."""


class ConnectionFailed(SitelensError):
    """No answer: the server could not be reached, or did not answer in time."""


class ApiError(SitelensError):
    """An answer with an error status. `message` and `body` are the API's own."""

    status = 0

    def __init__(self, status: int, body: Any, headers: dict[str, str]) -> None:
        self.status = status
        self.body = body
        self.headers = headers
        message = body.get("message") if isinstance(body, dict) else None
        self.message: Any = message if message is not None else body
        super().__init__(f"{status}: {self.message}")


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    """401: no key, or one that is wrong, revoked or expired."""

    status = 401


class Forbidden(ApiError):
    """403: the key's scopes do not allow this."""

    status = 403


class NotFound(ApiError):
    status = 404


class MethodNotAllowed(ApiError):
    status = 405


class Conflict(ApiError):
    """409: the record's state forbids this now (a domain taken, a delivery in flight...)."""

    status = 409


class PayloadTooLarge(ApiError):
    status = 413


class UnsupportedMediaType(ApiError):
    status = 415


class ValidationError(ApiError):
    """422: `errors` maps each field (or `body`) to what is wrong with it."""

    status = 422

    @property
    def errors(self) -> dict[str, Any]:
        return self.message if isinstance(self.message, dict) else {}


class RateLimited(ApiError):
    """429, after the client's retries: `retry_after` is the seconds the API asked to wait."""

    status = 429

    @property
    def retry_after(self) -> float | None:
        return retry_after_seconds(self.headers)


class ServerError(ApiError):
    """5xx."""

    status = 500


class ServiceUnavailable(ServerError):
    status = 503


BY_STATUS: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        Conflict,
        PayloadTooLarge,
        UnsupportedMediaType,
        ValidationError,
        RateLimited,
        ServiceUnavailable,
    )
}


def for_status(status: int, body: Any, headers: dict[str, str]) -> ApiError:
    """The exception of an error answer: its status's class, else ServerError or ApiError."""
    cls = BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return cls(status, body, headers)


def retry_after_seconds(headers: dict[str, str]) -> float | None:
    """`Retry-After` in seconds (the API sends whole seconds), or None."""
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:  # an HTTP date: the API never sends one; wait as if none were sent
        return None
