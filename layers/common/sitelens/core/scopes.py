"""What the request's key may do: read or write, over every record of its account or only
over listed websites and projects; and the one rule saying which records a limited key
sees.

The edge's auth sets the scope of each keyed request (`use`); the shared record reads
(`data.records.get`, `data.pages.page`) and creates (`data.records.create`) apply it, so
every route that reads records through them, today's and tomorrow's, is scoped without a
line of its own. Outside a keyed request (queue workers, share views, tracking) there is
no scope and nothing is hidden.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

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


EVERYTHING = Scope()
_current: ContextVar[Scope] = ContextVar("sitelens_scope", default=EVERYTHING)


def use(scope: Scope | None) -> None:
    """Make `scope` the current request's (None: no limit, between requests)."""
    _current.set(scope or EVERYTHING)


def current() -> Scope:
    return _current.get()
