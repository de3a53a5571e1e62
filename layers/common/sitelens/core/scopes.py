"""What the request's key may do: read or write, over every record of its account or only
over listed websites and projects; the one rule saying which records a limited key sees;
and the scope every read of records runs under.

Scopes are closed by default. A read of records answers only within the scope in force,
and outside any declared scope it answers nothing: it raises `Undeclared`, a programming
error, rather than return an empty list that a worker would take for "no records" (a hit
dropped as of a deleted website, a digest never sent). Who declares what, each in one
place:

- a keyed request: `edge.http.api_handler` runs the operation `within` its key's scope;
- a keyless entry point (queue workers, schedules, share views, tracking, the command
  line): `system`, or `api_handler` with `public`, runs it `within(SYSTEM)`, since what it
  addresses comes from the event, not from a key;
- threads: `ThreadPool` runs every task in a copy of the submitter's context, so a task
  reads under its submitter's scope (a plain thread starts with none, and its reads raise).

The shared record reads (`data.records.get`, `data.pages.page`) and creates
(`data.records.create`) and every other read of records in `sitelens.data` apply it, so
every route, today's and tomorrow's, is scoped without a line of its own
(tests/integration/test_data_scopes.py walks them all).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from sitelens.core import hosts

ACCESS = ("read", "write")
MAX_LISTED = 50  # websites, and projects, one key may be limited to: an IN list DynamoDB takes

# Fields by which a record of any other collection names its website or project (a goal's
# `website_id`, an audit's `url`, whose site is its project as a report's is); a record naming
# none is hidden from limited keys.
WEBSITE_FIELDS = ("website_id", "site_id", "website")
PROJECT_FIELDS = ("project",)
URL_FIELDS = ("url",)


@dataclass(frozen=True)
class Scope:
    """A key's reach. `websites`/`projects` None: every one of the account's; a key with
    either listed is *limited* and sees only what is listed (a key listing websites alone
    sees no report)."""

    access: str = "write"
    websites: frozenset[int] | None = None
    projects: frozenset[str] | None = None

    @property
    def limited(self) -> bool:
        return self.websites is not None or self.projects is not None

    @property
    def writes(self) -> bool:
        return self.access == "write"

    def sees_website(self, website_id: Any) -> bool:
        if not self.limited:
            return True
        try:
            return int(website_id) in (self.websites or ())
        except (TypeError, ValueError):
            return False

    def sees_project(self, project: Any) -> bool:
        return not self.limited or (isinstance(project, str) and project in (self.projects or ()))

    def admits(self, collection: str, record: dict[str, Any]) -> bool:
        """Whether a record (or a list index's entry of it) of `collection` is within reach."""
        if not self.limited:
            return True
        if collection == "websites":
            return self.sees_website(record.get("id"))
        if collection == "reports":  # slim index entries carry `project_key` = account#project
            project = record.get("project") or str(record.get("project_key", "")).partition("#")[2]
            return self.sees_project(project)
        if collection == "projects":
            return self.sees_project(record.get("project"))
        websites = [record[f] for f in WEBSITE_FIELDS if record.get(f) is not None]
        projects = [record[f] for f in PROJECT_FIELDS if record.get(f) is not None]
        projects += [project_of(record[f]) for f in URL_FIELDS if isinstance(record.get(f), str)]
        return any(self.sees_website(w) for w in websites) or any(
            self.sees_project(p) for p in projects
        )

    def public(self) -> dict[str, Any]:
        """The scope as the keys API shows it: lists sorted, None for "all"."""
        return {
            "access": self.access,
            "websites": None if self.websites is None else sorted(self.websites),
            "projects": None if self.projects is None else sorted(self.projects),
        }


def project_of(url: str) -> str | None:
    """The project a URL belongs to: its host's site (`https://www.Example.com/x` ->
    `example.com`), as a report's project is made; None for text that is no such URL."""
    parts = hosts.split_url(url)
    try:
        return hosts.parse(parts.hostname).site_name if parts and parts.hostname else None
    except hosts.InvalidHost:
        return None


class Undeclared(RuntimeError):
    """Records were read where no scope was declared: a programming error (a keyless entry
    point without `system`, a thread started outside `ThreadPool`)."""


EVERYTHING = Scope()
# What a keyless entry point reads under: every record, of whichever account its event names.
SYSTEM = EVERYTHING
_current: ContextVar[Scope | None] = ContextVar("sitelens_scope", default=None)

P = ParamSpec("P")
R = TypeVar("R")


def current() -> Scope:
    """The scope in force; `Undeclared` outside every declared one."""
    scope = _current.get()
    if scope is None:
        raise Undeclared("Records read outside any scope: declare one (core.scopes).")
    return scope


def admits(collection: str, record: dict[str, Any]) -> bool:
    """Whether the scope in force reaches `record` of `collection` (`Scope.admits`)."""
    return current().admits(collection, record)


def visible(collection: str, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of `collection` within the scope in force, in their order."""
    scope = current()
    return [record for record in records if scope.admits(collection, record)]


@contextmanager
def within(scope: Scope) -> Iterator[Scope]:
    """Run the block under `scope`, and restore the one before it (none) afterwards."""
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)


def system(entry: Callable[P, R]) -> Callable[P, R]:
    """Declare a keyless entry point (a queue worker, a schedule, a command): it runs
    `within(SYSTEM)`. Marks it `scope = "system"`, as `api_handler` marks its handlers."""

    @functools.wraps(entry)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with within(SYSTEM):
            return entry(*args, **kwargs)

    run.scope = "system"  # type: ignore[attr-defined]
    return run


class ThreadPool(ThreadPoolExecutor):
    """A ThreadPoolExecutor whose tasks run in a copy of the submitter's context, so each
    reads records under the scope of the code that submitted it (`map` submits too)."""

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)
