"""What a tool is (the API route it stands for, its input model, what it runs), who calls
it (the key's account and scope, for this request), and how its answer or refusal reads."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any, cast

from pydantic import Field

from sitelens.accounts import roles
from sitelens.core import errors, scopes
from sitelens.edge import auth
from sitelens.edge.http import Request, Response, listed, ok
from sitelens.records.inputs import Input
from sitelens.records.listing import Page

# A record id as a tool takes it (the API reads it from the path).
RecordId = Annotated[int, Field(ge=1, le=2**53)]


@dataclass(frozen=True)
class Caller:
    """The request the tools run in: its key's account, grant (its member's role and its
    scope), and the API's base URL the links of answers are built on."""

    account_id: str
    grant: Any  # sitelens.accounts.Grant
    base_url: str

    @property
    def scope(self) -> scopes.Scope:
        return cast(scopes.Scope, self.grant.scope)


_caller: ContextVar[Caller | None] = ContextVar("sitelens_mcp_caller", default=None)


@contextmanager
def calling(caller: Caller) -> Iterator[Caller]:
    """Run the MCP request's tools, resources and prompts as `caller`."""
    token = _caller.set(caller)
    try:
        yield caller
    finally:
        _caller.reset(token)


def caller() -> Caller:
    found = _caller.get()
    if found is None:  # a programming error: the transport always sets one
        raise errors.ApiError()
    return found


@dataclass(frozen=True)
class Route:
    """An API route a tool (or resource) stands for: its key-scope gate is that route's."""

    method: str
    path: str  # the template's resource path, e.g. /api/v1/websites/{id}

    @property
    def writes(self) -> bool:
        return self.method not in auth.READING_METHODS and self.path not in auth.READING_POSTS

    def permit(self, path_params: dict[str, str], query: dict[str, str] | None = None) -> None:
        """Refuse what the key's member's role or scope refuses on the route (403, 404), as
        the API does."""
        auth.permit(caller().grant, self.method, self.path, path_params, query or {})

    def request(self, path_params: dict[str, str], query: dict[str, Any]) -> Request:
        """The API request this call stands for: what the API's envelopes and links read."""
        path = self.path
        for name, value in path_params.items():
            path = path.replace("{" + name + "}", value)
        present = {k: str(v) for k, v in query.items() if v is not None}
        base = caller().base_url
        return Request(self.method, path, self.path, path_params, present, {}, b"", "", base)


@dataclass(frozen=True)
class Tool:
    """One tool: its name and sentence, the route it stands for, its input model (the API's,
    with the ids the route's path carries), and what it runs on the parsed input."""

    name: str
    description: str
    route: Route
    inputs: type[Input]
    run: Callable[[Any], dict[str, Any]]
    title: str = ""
    annotations: dict[str, Any] = field(default_factory=dict)

    @property
    def writes(self) -> bool:
        return self.route.writes


def visible(tool: Tool, grant: Any) -> bool:
    """Whether a key of `grant` sees the tool: the ones its member's role allows on the
    route the tool stands for, and of them, for a read key, the reading ones only."""
    if not roles.allows(grant.role, tool.route.method, tool.route.path):
        return False
    return bool(grant.scope.writes) or not tool.writes


def answered(response: Response) -> dict[str, Any]:
    """The API's body of a response, as a tool's structured answer."""
    body: dict[str, Any] = response.body
    return body


def shown(data: Any, status: int = 200) -> dict[str, Any]:
    """`{"data": ..., "status": ...}`, as the API shows a record."""
    return answered(ok(data, status))


def page_of(route: Route, path_params: dict[str, str], page: Page) -> dict[str, Any]:
    """A list page in the API's envelope; `meta.next_cursor` is what the next call takes."""
    return answered(listed(route.request(path_params, page.params), page))


def refusal(err: errors.ApiError) -> str:
    """The API's error body, as the text of a tool's error result."""
    return json.dumps(err.body(), separators=(",", ":"), ensure_ascii=False)
