"""Sends calls for the async client: retries, rate-limit headers, and paging."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import TypeVar

import httpx

from sitelens_client import _calls, errors
from sitelens_client._calls import Call, Page, RateLimit, Retries

T = TypeVar("T")


class AsyncRunner:
    def __init__(self, http: httpx.AsyncClient, bases: Mapping[str, str], retries: Retries) -> None:
        self.http = http
        self.bases = bases
        self.retries = retries
        self.rate_limit: RateLimit | None = None

    async def run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = await self.http.send(_calls.request(self.http, self.bases, call))
            except httpx.TransportError as error:
                raise errors.ConnectionFailed(str(error)) from error
            self.rate_limit = RateLimit.of(response.headers) or self.rate_limit
            wait = self.retries.delay(call, attempt, response)
            if wait is None:
                return _calls.answer(call, response)
            await response.aclose()
            await asyncio.sleep(wait)
            attempt += 1

    def paginate(self, call: Call[Page[T]]) -> AsyncPaginator[T]:
        return AsyncPaginator(self, call)


class AsyncPaginator(AsyncIterator[T]):
    """Every item of a list, page after page (`meta.next_cursor`), fetched as iterated
    (`async for`). `pages()` yields the pages themselves."""

    def __init__(self, runner: AsyncRunner, call: Call[Page[T]]) -> None:
        self._runner = runner
        self._call = call
        self._items: AsyncIterator[T] | None = None

    async def pages(self) -> AsyncIterator[Page[T]]:
        call: Call[Page[T]] | None = self._call
        while call is not None:
            page = await self._runner.run(call)
            yield page
            call = call.with_params(cursor=page.next_cursor) if page.next_cursor else None

    async def _all(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.items:
                yield item

    async def __anext__(self) -> T:
        if self._items is None:
            self._items = self._all()
        return await self._items.__anext__()

    async def to_list(self) -> list[T]:
        return [item async for item in self]
