"""What a call is, and what the sync and async clients share about sending it: the request
it makes, when it is tried again, and what its answer becomes."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Literal, TypeVar

import httpx

from sitelens_client import errors
from sitelens_client.models.base import SitelensModel

T = TypeVar("T")
M = TypeVar("M", bound=SitelensModel)
Base = Literal["analytics", "seo"]
# Methods a 503 may be retried on: reads, and writes the API applies whole or not at all.
RETRIED_ON_503 = frozenset({"GET", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class Call(Generic[T]):
    """One operation: where it goes, what it sends, and how its answer body is read."""

    method: str
    base: Base
    path: str
    read: Callable[[Any], T]
    params: Mapping[str, Any] | None = None
    body: Any = None
    # an Idempotency-Key header: sent on creates (POST that makes a record)
    idempotency_key: str | None = None
    # a POST that only reads (a query) may be retried on 503 like a GET
    read_only: bool = False

    def with_params(self, **params: Any) -> Call[T]:
        return replace(self, params={**(self.params or {}), **params})


def create(base: Base, path: str, read: Callable[[Any], T], body: Any, key: str | None) -> Call[T]:
    """A POST that makes a record, with an idempotency key (given, or a new UUID)."""
    return Call("POST", base, path, read, body=body, idempotency_key=key or str(uuid.uuid4()))


@dataclass(frozen=True)
class Retries:
    """When a 429 or 503 is tried again, and how long the client waits first.

    A 429's wait is its `Retry-After`, else the time until `X-RateLimit-Reset` when
    `X-RateLimit-Remaining` is 0, else an exponential backoff with jitter; a 503's is its
    `Retry-After` or the backoff. A wait longer than `max_wait` is not waited: the error is
    raised with the API's answer, so a caller never sleeps for minutes unawares.
    """

    max_retries: int = 3
    max_wait: float = 30.0
    backoff: float = 0.5

    def delay(self, call: Call[Any], attempt: int, response: httpx.Response) -> float | None:
        """Seconds to wait before trying `call` again, or None not to."""
        status = response.status_code
        if attempt >= self.max_retries or status not in (429, 503):
            return None
        if status == 503 and call.method not in RETRIED_ON_503 and not call.read_only:
            return None
        headers = response.headers
        wait = errors.retry_after_seconds(dict(headers))
        if wait is None and status == 429 and headers.get("x-ratelimit-remaining") == "0":
            reset = headers.get("x-ratelimit-reset", "")
            if reset.isdigit():
                wait = max(0.0, int(reset) - time.time())
        if wait is None:
            wait = self.backoff * 2**attempt * (0.5 + random.random() / 2)
        return wait if wait <= self.max_wait else None


@dataclass(frozen=True)
class RateLimit:
    """The account's bucket as the last keyed answer told it (X-RateLimit-*)."""

    limit: int
    remaining: int
    reset: int

    @classmethod
    def of(cls, headers: httpx.Headers) -> RateLimit | None:
        try:
            return cls(
                int(headers["x-ratelimit-limit"]),
                int(headers["x-ratelimit-remaining"]),
                int(headers["x-ratelimit-reset"]),
            )
        except (KeyError, ValueError):
            return None


@dataclass
class Page(Generic[T]):
    """One page of a list: its items and the cursors around it (None at either end)."""

    items: list[T]
    next_cursor: str | None = None
    prev_cursor: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def request(
    client: httpx.Client | httpx.AsyncClient, bases: Mapping[str, str], call: Call[Any]
) -> httpx.Request:
    headers = {"Idempotency-Key": call.idempotency_key} if call.idempotency_key else None
    params = {k: v for k, v in (call.params or {}).items() if v is not None}
    return client.build_request(
        call.method,
        bases[call.base].rstrip("/") + call.path,
        params=params,
        json=call.body,
        headers=headers,
    )


def answer(call: Call[T], response: httpx.Response) -> T:
    """The call's result from a 2xx answer, or the error of any other as its exception."""
    content_type = response.headers.get("content-type", "")
    body: Any = response.json() if "json" in content_type else response.content
    if response.is_success:
        return call.read(body)
    if not isinstance(body, dict):  # a proxy's or gateway's page: its text is the message
        body = {"message": response.text, "status": response.status_code}
    raise errors.for_status(response.status_code, body, dict(response.headers))


# How answers are read: the envelope's `data` as a model, or a list of them.
def data(model: type[M]) -> Callable[[Any], M]:
    return lambda body: model.model_validate(body["data"])


def items(model: type[M]) -> Callable[[Any], list[M]]:
    return lambda body: [model.model_validate(item) for item in body["data"]]


def page(model: type[M]) -> Callable[[Any], Page[M]]:
    def read(body: Any) -> Page[M]:
        meta = body.get("meta") or {}
        return Page(
            [model.model_validate(item) for item in body["data"]],
            meta.get("next_cursor"),
            meta.get("prev_cursor"),
            meta,
        )

    return read


def raw(body: Any) -> Any:
    """The envelope's `data` as the API sent it (answers the documents give no model)."""
    return body["data"] if isinstance(body, dict) and "data" in body else body


def content(body: Any) -> bytes:
    """A file's bytes (CSV, PDF)."""
    return bytes(body)
