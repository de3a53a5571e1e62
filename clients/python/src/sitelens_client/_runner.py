"""Sends calls for the sync client: retries, rate-limit headers, and paging."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import httpx

from sitelens_client import _calls, errors
from sitelens_client._calls import Call, Page, RateLimit, Retries

T = TypeVar("T")


class Runner:
    def __init__(self, http: httpx.Client, bases: Mapping[str, str], retries: Retries) -> None:
        self.http = http
        self.bases = bases
        self.retries = retries
        self.rate_limit: RateLimit | None = None

    def run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = self.http.send(_calls.request(self.http, self.bases, call))
            except httpx.TransportError as error:
                raise errors.ConnectionFailed(str(error)) from error
            self.rate_limit = RateLimit.of(response.headers) or self.rate_limit
            wait = self.retries.delay(call, attempt, response)
            if wait is None:
                return _calls.answer(call, response)
            response.close()
            time.sleep(wait)
            attempt += 1

    def paginate(self, call: Call[Page[T]]) -> Paginator[T]:
        return Paginator(self, call)


class Paginator(Iterator[T]):
    """Every item of a list, page after page (`meta.next_cursor`), fetched as iterated.
    `pages()` yields the pages themselves."""

    def __init__(self, runner: Runner, call: Call[Page[T]]) -> None:
        self._runner = runner
        self._call = call
        self._items: Iterator[T] | None = None

    def pages(self) -> Iterator[Page[T]]:
        call: Call[Page[T]] | None = self._call
        while call is not None:
            page = self._runner.run(call)
            yield page
            call = call.with_params(cursor=page.next_cursor) if page.next_cursor else None

    def __next__(self) -> T:
        if self._items is None:
            self._items = (item for page in self.pages() for item in page.items)
        return next(self._items)

    def to_list(self) -> list[T]:
        return list(self)


def params(**values: Any) -> dict[str, Any]:
    return {k.rstrip("_"): v for k, v in values.items() if v is not None}
