"""The Python client of the Sitelens APIs: `Sitelens` (sync) and `AsyncSitelens` (async),
typed models of both OpenAPI documents, errors by status and webhook verification."""

from sitelens_client._async_runner import AsyncPaginator
from sitelens_client._calls import Call, Page, RateLimit, Retries
from sitelens_client._runner import Paginator
from sitelens_client.async_client import AsyncSitelens
from sitelens_client.client import Sitelens
from sitelens_client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    SitelensError,
    Unauthorized,
    UnsupportedMediaType,
    ValidationError,
)
from sitelens_client.version import VERSION
from sitelens_client.webhooks import InvalidSignature

__version__ = VERSION
__all__ = [
    "ApiError",
    "AsyncPaginator",
    "AsyncSitelens",
    "BadRequest",
    "Call",
    "Conflict",
    "ConnectionFailed",
    "Forbidden",
    "InvalidSignature",
    "MethodNotAllowed",
    "NotFound",
    "Page",
    "Paginator",
    "PayloadTooLarge",
    "RateLimit",
    "RateLimited",
    "Retries",
    "ServerError",
    "ServiceUnavailable",
    "Sitelens",
    "SitelensError",
    "Unauthorized",
    "UnsupportedMediaType",
    "ValidationError",
]
